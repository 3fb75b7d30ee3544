// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's start through the booter (Turing to Ada), after FWSEC-FRTS made WPR2
//! (`docs/boot-chain.md`, steps 8 to 10):
//!
//! 1. The memory GSP-RM is given: the message queues and RMARGS (`GSP_ARGUMENTS_CACHED`), the
//!    three log buffers, the LIBOS arguments naming them; `GSP_SET_SYSTEM_INFO` and
//!    `SET_REGISTRY` queued.
//! 2. What the booter copies into WPR2: `.fwimage` through its radix3 tables, the RISC-V
//!    bootloader, the chip's signature, and the WPR meta (`GspFwWprMeta`, versioned) naming
//!    them with the framebuffer layout.
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
    dma::Coherent,
    prelude::*,
    sync::Arc,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::SharedBar0,
    booter,
    falcon::{
        gsp::Gsp as GspEngine,
        Falcon, //
    },
    fb::layout::FbLayout,
    firmware::{
        BootFiles,
        FwVersion, //
    },
    fwsec,
    gpu::Spec,
    gsp::{
        boot::{
            libos_id8,
            Gsp,
            Shared,
            Teardown,
            INIT_TIMEOUT, //
        },
        commands::{
            write_libos_args,
            LibosRegion,
            WprMetaArgs, //
        },
        logs::{
            Logs,
            LOG_SIZE, //
        },
        radix3::Radix3,
    },
    pci::SystemFacts,
};

/// How long GSP-RM's RISC-V core may take to run once the booter halted.
const RISCV_TIMEOUT: Delta = Delta::from_secs(5);

/// What the booter reads, kept until `GSP_INIT_DONE`.
pub(crate) struct BooterInput {
    _radix3: Pin<KBox<Radix3>>,
    _bootloader: Coherent<[u8]>,
    _signature: Coherent<[u8]>,
    _wpr_meta: Coherent<[u8]>,
    _booter: booter::Loaded,
}

/// The boot's fixed facts.
pub(crate) struct ChainArgs<'a> {
    pub(crate) spec: Spec,
    pub(crate) version: FwVersion,
    pub(crate) boot0: u32,
    pub(crate) layout: &'a FbLayout,
    pub(crate) facts: &'a SystemFacts,
}

/// The low and high halves of a DMA address, for a pair of mailboxes.
fn halves(address: u64) -> Result<(u32, u32)> {
    Ok((
        u32::try_from(address & 0xffff_ffff)?,
        u32::try_from(address >> 32)?,
    ))
}

/// Starts GSP-RM through the booter and waits for `GSP_INIT_DONE`. `files` are the boot's
/// firmware contents; `sb` is FWSEC-SB prepared for teardown. A GSP that does not come up
/// is stopped ([`Gsp::shutdown`], teardown included) before the error returns.
pub(crate) fn start(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    args: ChainArgs<'_>,
    files: BootFiles,
    sb: fwsec::Prepared,
) -> Result<Gsp> {
    let ChainArgs {
        spec,
        version,
        boot0,
        layout,
        facts,
    } = args;
    let chipset = spec.chipset;
    let (queues, rmargs) = super::boot::queues_and_rmargs(dev, version)?;
    let logs = Arc::new(Logs::new(dev)?, GFP_KERNEL)?;
    let log_size = u64::try_from(LOG_SIZE)?;
    let regions = [
        ("LOGINIT", logs.init.address(), log_size),
        ("LOGINTR", logs.intr.address(), log_size),
        ("LOGRM", logs.rm.address(), log_size),
        ("RMARGS", rmargs.dma_address(), u64::try_from(rmargs.len())?),
    ]
    .map(|(name, address, size)| LibosRegion {
        id8: libos_id8(name),
        address,
        size,
    });
    let mut libos = KVec::new();
    write_libos_args(&regions, &mut libos)?;
    libos.resize(super::boot::LIBOS_ARGS_SIZE, 0, GFP_KERNEL)?;
    let libos = Coherent::from_slice(dev, &libos, GFP_KERNEL)?;

    let radix3 = KBox::pin_init(Radix3::new(dev, files.image), GFP_KERNEL)?;
    let bootloader = Coherent::from_slice(dev, &files.bootloader, GFP_KERNEL)?;
    let signature = Coherent::from_slice(dev, &files.signature, GFP_KERNEL)?;
    let mut meta = KVec::new();
    version.write_wpr_meta(
        &WprMetaArgs {
            radix3: radix3.root(),
            image_size: u64::try_from(radix3.size())?,
            bootloader: bootloader.dma_address(),
            bootloader_size: u64::try_from(bootloader.len())?,
            bootloader_offsets: [
                files.bootloader_code_offset.into(),
                files.bootloader_data_offset.into(),
                files.bootloader_manifest_offset.into(),
            ],
            signature: signature.dma_address(),
            signature_size: u64::try_from(signature.len())?,
            layout,
        },
        &mut meta,
    )?;
    let wpr_meta = Coherent::from_slice(dev, &meta, GFP_KERNEL)?;

    let mut gsp = Gsp::new(
        spec,
        version,
        Shared::new(queues, rmargs, libos, Some(logs.clone())),
        Teardown {
            chipset,
            boot0,
            sb: Some(sb),
            booter_unload: files.booter_unload,
        },
    );
    gsp.queue_boot_commands(facts)?;

    let libos_address = gsp.libos_address()?;
    let gsp_falcon = Falcon::<GspEngine>::new(bar, chipset);
    let started = Instant::<Monotonic>::now();
    let loaded = gsp_falcon
        .reset(boot0)
        .and_then(|()| {
            let (lo, hi) = halves(libos_address)?;
            gsp_falcon.write_mailboxes(lo, hi)
        })
        .and_then(|()| {
            booter::run_load(
                dev,
                bar,
                chipset,
                boot0,
                &files.booter_load,
                halves(wpr_meta.dma_address())?,
            )
        });
    let loaded = match loaded {
        Ok(loaded) => loaded,
        Err(e) => {
            // GSP-RM never started: nothing runs that the unload message could reach.
            gsp.set_unreachable();
            gsp.shutdown(dev, bar);
            return Err(e);
        }
    };
    gsp.keep_booter_input(BooterInput {
        _radix3: radix3,
        _bootloader: bootloader,
        _signature: signature,
        _wpr_meta: wpr_meta,
        _booter: loaded,
    });
    let running = gsp_falcon
        .write_os(files.bootloader_app_version)
        .and_then(|()| {
            gsp_falcon
                .wait(gsp_falcon.riscv_active(), RISCV_TIMEOUT)?
                .map_err(|e| {
                    dev_err!(
                        dev,
                        "GSP-RM did not start: {} within {} ms\n",
                        e,
                        RISCV_TIMEOUT.as_millis()
                    );
                    ETIMEDOUT
                })
        });
    if let Err(e) = running {
        // No GSP-RM to ask to unload: teardown alone.
        gsp.set_unreachable();
        gsp.shutdown(dev, bar);
        return Err(e);
    }
    let up = Ok(()).and_then(|()| {
        let (lo, _) = halves(libos_address)?;
        gsp.run_sequence(
            dev,
            bar,
            &gsp_falcon,
            boot0,
            libos_address,
            files.bootloader_app_version,
        )?;
        gsp.wait_init_done(dev, bar, INIT_TIMEOUT, Some(lo))
    });
    if let Err(e) = up {
        gsp.shutdown(dev, bar);
        return Err(e);
    }
    dev_dbg!(
        dev,
        "GSP_INIT_DONE {} ms after the booter's start\n",
        started.elapsed().as_millis()
    );
    // GSP-RM runs from WPR2: what the booter read goes.
    gsp.drop_booter_input();
    Ok(gsp)
}
