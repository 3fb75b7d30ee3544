// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's start through the FSP (Hopper and Blackwell, `docs/fsp-chain.md`):
//!
//! 1. The memory GSP-RM is given, as on the booter's path ([`super::start::allocate`]): the
//!    queues, RMARGS, log buffers and LIBOS arguments; `.fwimage` through radix3, the
//!    bootloader, the signature; the WPR meta, with the sizes of what GSP-FMC places and every
//!    offset 0. Then `GSP_FMC_BOOT_PARAMS` naming the WPR meta and the LIBOS arguments, and the
//!    FMC image in DMA memory.
//! 2. `GSP_SET_SYSTEM_INFO` and `SET_REGISTRY` queued.
//! 3. The chain of trust: the FSP (ready: probe waited for it) is sent the FMC image's
//!    address, the FRTS region, the FMC's hash, key and signature and the boot parameters'
//!    address; its reply must accept them ([`crate::fsp`]).
//! 4. GSP-FMC releases the GSP's lockdown once it has read the boot parameters; an error code
//!    in its mailbox fails the boot.
//! 5. The application version in the GSP falcon's OS register; its RISC-V core active;
//!    `GSP_INIT_DONE`.
//!
//! Once the FSP was sent the chain of trust, every failure ends in teardown, which waits for
//! the GSP's RISC-V core to halt before anything GSP-FMC or GSP-RM may read is freed (or
//! leaks it). Where the FSP gave no answer the driver can read, it may have started GSP-FMC
//! whatever the core says: everything stays allocated.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    io::poll::read_poll_timeout,
    prelude::*,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::SharedBar0,
    chip::{
        Chipset,
        Spec, //
    },
    falcon::{
        gsp::Gsp as GspEngine,
        Falcon, //
    },
    family::FspHal,
    fb::sizes::FmcSizes,
    firmware::{
        BootFiles,
        Starter, //
    },
    fsp::{
        protocol::{
            Cot,
            FmcFailed,
            Lockdown, //
        },
        Fsp,
    },
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
            FmcInput,
            Images,
            Placement, //
        },
        teardown::{
            NeedsReset,
            Teardown, //
        },
    },
    pci::SystemFacts,
};

/// How long GSP-FMC may take to release the GSP's lockdown after the FSP accepted it: nova-core's
/// bound (`nova-core/gsp/hal/gh100.rs`, `wait_for_gsp_lockdown_release`, 30 s); nouveau reads 4000
/// times 1 to 2 ms apart (`nvkm/subdev/gsp/gh100.c`, `gh100_gsp_init`).
const LOCKDOWN_TIMEOUT: Delta = Delta::from_secs(30);

/// The boot's fixed facts.
pub(crate) struct FspArgs<'a> {
    pub(crate) spec: Spec,
    pub(crate) sizes: &'a FmcSizes,
    pub(crate) facts: &'a SystemFacts,
}

/// Waits until GSP-FMC released the GSP's lockdown, at most [`LOCKDOWN_TIMEOUT`]:
/// `boot_params` is the address it leaves in the mailboxes until it has read them.
fn wait_lockdown(dev: &Device<Bound>, falcon: &Falcon<'_, GspEngine>, boot_params: u64) -> Result {
    let state = || -> Result<Result<Lockdown, FmcFailed>> {
        Ok(falcon
            .lockdown_regs()?
            .validate_ref_against::<Lockdown, _>(boot_params))
    };
    let last = read_poll_timeout(
        state,
        |s| !matches!(s, Ok(Lockdown::Locked | Lockdown::Booting)),
        Delta::from_millis(10),
        LOCKDOWN_TIMEOUT,
    )
    .or_else(|_| state())?;
    match last {
        Ok(Lockdown::Released) => Ok(()),
        Ok(state) => {
            dev_err!(
                dev,
                "GSP lockdown not released within {} ms ({})\n",
                LOCKDOWN_TIMEOUT.as_millis(),
                match state {
                    Lockdown::Locked => "GSP registers still locked to the FSP",
                    _ => "GSP-FMC still booting",
                }
            );
            Err(ETIMEDOUT)
        }
        Err(FmcFailed(code)) => {
            dev_err!(dev, "GSP-FMC boot failed: error code {:#x}\n", code);
            Err(EIO)
        }
    }
}

/// Starts GSP-RM through the FSP and waits for `GSP_INIT_DONE`. Whatever fails once the chain
/// of trust was sent ends in the teardown's halt wait before the error returns.
pub(crate) fn start<V: Interface>(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    args: FspArgs<'_>,
    files: BootFiles,
) -> Result<Gsp<V>> {
    let FspArgs { spec, sizes, facts } = args;
    // The firmware files were chosen for the chip (`FwVersion::supports`), and every version
    // that supports a chip GSP-FMC boots has its part.
    let Some(part) = V::FMC else {
        dev_err!(
            dev,
            "GSP firmware {} boots no chip through GSP-FMC\n",
            V::VERSION
        );
        return Err(ENODEV);
    };
    let chipset = spec.chipset;
    let hal = spec.family().fsp().ok_or(ENODEV)?;
    let BootFiles {
        gsp: mut rm,
        starter,
    } = files;
    let Starter::Fmc(fmc) = starter else {
        return Err(EINVAL);
    };
    let app_version = rm.bootloader_app_version;
    let placement = Placement::Sizes(sizes, &part);
    let (shared, mut input) = allocate::<V>(dev, placement, Images::take(&mut rm))?;
    // What the FSP and GSP-FMC read, made before the GSP exists: a failure here frees it all,
    // nothing ran.
    let fmc_input = FmcInput::new(dev, &part, &fmc, &input, shared.libos_address())?;
    let cot = Cot {
        version: hal.cot_version,
        fmc: fmc_input.image(),
        frts_vidmem_offset: sizes.frts_offset,
        frts_vidmem_size: u32::try_from(sizes.frts_size)?,
        hash: &fmc.hash,
        public_key: &fmc.public_key,
        signature: &fmc.signature,
        boot_params: fmc_input.boot_params(),
    };
    input.fmc = Some(fmc_input);
    // From here on every way out goes through the GSP's shutdown below.
    let teardown = Teardown::Fsp {
        chipset,
        started: false,
    };
    let mut gsp = Gsp::<V>::new(spec, shared, teardown);
    gsp.keep_boot_input(input);
    gsp.start_with(dev, bar, facts, |gsp| {
        boot(dev, bar, gsp, chipset, hal, &cot, app_version)
    })
}

/// [`start`] once GSP-RM's memory is given and its boot commands queued, the same for every
/// version: the chain of trust `cot` sent to the FSP, GSP-FMC's lockdown released, GSP-RM's
/// RISC-V core, `GSP_INIT_DONE`. A failure leaves `gsp` marked as it must be stopped
/// (unreachable, or pinned) for the caller's shutdown.
fn boot(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    gsp: &mut GspCore,
    chipset: Chipset,
    hal: &'static FspHal,
    cot: &Cot<'_>,
    app_version: u32,
) -> Result {
    // Ready: probe waited for its boot status.
    let fsp = Fsp::new(bar, hal);
    let gsp_falcon = Falcon::<GspEngine>::new(bar, chipset);
    // A GSP-RM that an earlier binding could not stop still runs its core, and the FSP boots no
    // second one over it: refused before the chain is sent. OpenRM refuses the same way, by
    // another sign of a GSP-RM still up (WPR2 still set, `_kgspBootGspRm`); the driver reads
    // the GSP's RISC-V core, which it reads at teardown too.
    if let Ok(Ok(_)) = gsp_falcon.check(gsp_falcon.riscv_active()) {
        dev_err!(
            dev,
            "GSP-RM of an earlier binding still runs: {}\n",
            NeedsReset(dev)
        );
        gsp.set_never_started();
        return Err(EBUSY);
    }
    let started = Instant::<Monotonic>::now();
    // From here on GSP-FMC may run and read what it was given.
    gsp.fmc_started();
    if let Err(f) = fsp.chain_of_trust(dev, cot) {
        if f.may_run {
            // The FSP took the message and gave no answer the driver can read: it may have
            // started GSP-FMC, which reads what the message names whatever the GSP's core
            // says (it reads halted until GSP-FMC runs).
            dev_err!(
                dev,
                "FSP: what the chain of trust names stays allocated (the FSP may still read it)\n"
            );
            gsp.pin();
        }
        gsp.set_never_started();
        return Err(f.error);
    }
    let running = wait_lockdown(dev, &gsp_falcon, cot.boot_params)
        .and_then(|()| run_riscv(dev, &gsp_falcon, app_version));
    if let Err(e) = running {
        // No GSP-RM to ask to unload: teardown alone.
        gsp.set_never_started();
        return Err(e);
    }
    dev_dbg!(
        dev,
        "GSP lockdown released {} ms after the chain of trust\n",
        started.elapsed().as_millis()
    );
    gsp.wait_init_done(dev, bar, INIT_TIMEOUT)?;
    dev_dbg!(
        dev,
        "GSP_INIT_DONE {} ms after the chain of trust\n",
        started.elapsed().as_millis()
    );
    // GSP-RM runs from WPR2: what GSP-FMC read goes.
    gsp.drop_boot_input();
    Ok(())
}
