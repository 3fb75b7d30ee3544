// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's start through the booter (Turing to Ada), after FWSEC-FRTS made WPR2
//! (`docs/boot-chain.md`, steps 8 to 10):
//!
//! 1. The memory GSP-RM is given ([`super::start::allocate`]): the message queues and RMARGS
//!    (`GSP_ARGUMENTS_CACHED`), the three log buffers, the LIBOS arguments naming them;
//!    `GSP_SET_SYSTEM_INFO` and `SET_REGISTRY` queued.
//! 2. What the booter copies into WPR2 (the same allocation): `.fwimage` through its radix3
//!    tables, the RISC-V bootloader, the chip's signature, and the WPR meta (`GspFwWprMeta`,
//!    versioned) naming them with the framebuffer layout.
//! 3. The GSP falcon reset, the LIBOS arguments' address in its mailboxes; `booter_load` on
//!    SEC2 with the WPR meta's address in SEC2's mailboxes ([`crate::booter`]).
//! 4. The application version in the GSP falcon's OS register; its RISC-V core active.
//! 5. GSP-RM's CPU sequence (`RUN_CPU_SEQUENCER`, [`super::sequencer`]), then
//!    `GSP_INIT_DONE`.
//!
//! What the booter read (the image, its tables, the bootloader, the signature, the WPR meta,
//! the booter's own DMA copy) is kept until `GSP_INIT_DONE`: the sequencer's resume goes
//! through SEC2 again. Teardown ([`super::boot::Gsp::shutdown`]) runs FWSEC-SB and
//! `booter_unload`, prepared here at probe.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    prelude::*,
    time::{
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::SharedBar0,
    booter::{
        self,
        LoadFailure, //
    },
    chip::Spec,
    falcon::{
        gsp::Gsp as GspEngine,
        halves,
        Falcon, //
    },
    fb::layout::FbLayout,
    firmware::GspFiles,
    gsp::{
        boot::{
            Gsp,
            GspCore,
            INIT_TIMEOUT, //
        },
        interface::Interface,
        start::{
            allocate,
            run_riscv,
            BootInput,
            Images,
            Placement, //
        },
        teardown::{
            BooterTeardown,
            Teardown, //
        },
    },
    pci::SystemFacts,
    untrusted::Untrusted,
};

/// The boot's fixed facts.
pub(crate) struct ChainArgs<'a> {
    pub(crate) spec: Spec,
    pub(crate) boot0: u32,
    pub(crate) layout: &'a FbLayout,
    pub(crate) facts: &'a SystemFacts,
}

/// Starts GSP-RM through the booter and waits for `GSP_INIT_DONE`. `rm` and `booter_load` are
/// the boot's firmware contents; `teardown` is what undoes it (FWSEC-SB and `booter_unload`,
/// prepared at probe). Whatever fails after this is called (WPR2 is set: FWSEC-FRTS ran) ends
/// in the chain's teardown before the error returns: GSP-RM stopped, WPR2 cleared, and only
/// then the memory freed (or leaked if a falcon could not be stopped).
pub(crate) fn start<V: Interface>(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    args: ChainArgs<'_>,
    mut rm: GspFiles,
    booter_load: Untrusted<KVVec<u8>>,
    teardown: BooterTeardown,
) -> Result<Gsp<V>> {
    let teardown = Teardown::Booter(teardown);
    let app_version = rm.bootloader_app_version;
    let images = Images::take(&mut rm);
    let (shared, input) = match allocate::<V>(dev, Placement::Layout(args.layout), images) {
        Ok(memory) => memory,
        Err(e) => {
            // Nothing of GSP-RM ran: FWSEC-FRTS's WPR2 alone is undone.
            teardown.run(dev, bar, true);
            return Err(e);
        }
    };
    // What the booter reads goes with the closure if the boot commands cannot be queued:
    // nothing read it yet.
    Gsp::<V>::new(args.spec, shared, teardown).start_with(dev, bar, args.facts, |gsp| {
        boot(dev, bar, &args, gsp, input, &booter_load, app_version)
    })
}

/// [`start`] once GSP-RM's memory is given and its boot commands queued, the same for every
/// version: `booter_load`, GSP-RM's RISC-V core, its CPU sequence, `GSP_INIT_DONE`. A failure
/// leaves `gsp` marked as it must be stopped (unreachable, or pinned) for the caller's
/// shutdown.
fn boot(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    args: &ChainArgs<'_>,
    gsp: &mut GspCore,
    mut input: BootInput,
    booter_load: &Untrusted<KVVec<u8>>,
    app_version: u32,
) -> Result {
    let (chipset, boot0) = (args.spec.chipset, args.boot0);
    let wpr_meta = halves(input.wpr_meta());
    let libos = gsp.libos_address();
    let gsp_falcon = Falcon::<GspEngine>::new(bar, chipset);
    let started = Instant::<Monotonic>::now();
    let loaded = gsp_falcon
        .reset(boot0)
        .and_then(|()| {
            let (lo, hi) = halves(libos);
            gsp_falcon.write_mailboxes(lo, hi)
        })
        .map_err(LoadFailure::from)
        .and_then(|()| booter::run_load(dev, bar, chipset, boot0, booter_load, wpr_meta));
    match loaded {
        Ok(loaded) => {
            input.booter = Some(loaded);
            gsp.keep_boot_input(input);
        }
        Err(failure) => {
            // GSP-RM never started: nothing runs that the unload message could reach. A SEC2
            // that could not be stopped may still read the booter's input: kept for good.
            let e = match failure {
                LoadFailure::Stopped(e) => e,
                LoadFailure::StillRunning(e) => {
                    gsp.pin();
                    e
                }
            };
            gsp.keep_boot_input(input);
            gsp.set_never_started();
            return Err(e);
        }
    }
    if let Err(e) = run_riscv(dev, &gsp_falcon, app_version) {
        // No GSP-RM to ask to unload: teardown alone.
        gsp.set_never_started();
        return Err(e);
    }
    if let Err(e) = gsp.run_sequence(dev, bar, &gsp_falcon, boot0, libos, app_version) {
        // GSP-RM waits for the end of its sequence (its core's resume), which will not come:
        // it answers nothing, and asking it to unload would only wait out a deadline.
        gsp.set_stalled();
        return Err(e);
    }
    gsp.wait_init_done(dev, bar, INIT_TIMEOUT)
        // From here on GSP-RM's own word is in MAILBOX0 (its suspend at unload): the LIBOS
        // arguments' address the driver left there goes.
        .and_then(|()| gsp_falcon.write_mailboxes(0, 0))?;
    dev_dbg!(
        dev,
        "GSP_INIT_DONE {} ms after the booter's start\n",
        started.elapsed().as_millis()
    );
    // GSP-RM runs from WPR2: what the booter read goes.
    gsp.drop_boot_input();
    Ok(())
}
