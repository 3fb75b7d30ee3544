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
        FwVersion,
        GspFiles,
        Starter, //
    },
    fwsec,
    gpu::Spec,
    gsp::{
        boot::{
            libos_id8,
            Gsp,
            Shared,
            INIT_TIMEOUT,
            LIBOS_ARGS_SIZE, //
        },
        commands::{
            write_libos_args,
            LibosRegion,
            Placement,
            WprMetaArgs, //
        },
        logs::{
            Logs,
            LOG_SIZE, //
        },
        radix3::Radix3,
        teardown::{
            BooterTeardown,
            Teardown, //
        },
    },
    pci::SystemFacts,
};

/// How long GSP-RM's RISC-V core may take to run once its starter is done (the booter halted,
/// or GSP-FMC released the lockdown).
const RISCV_TIMEOUT: Delta = Delta::from_secs(5);

/// The bootloader's application version in the GSP falcon's OS register, then GSP-RM's RISC-V
/// core active within [`RISCV_TIMEOUT`] (after either starter).
pub(crate) fn run_riscv(
    dev: &Device<Bound>,
    gsp_falcon: &Falcon<'_, GspEngine>,
    app_version: u32,
) -> Result {
    gsp_falcon.write_os(app_version)?;
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
        .map(|_| ())
}

/// What GSP-RM's starter reads (the booter, or the FSP and GSP-FMC), kept until
/// `GSP_INIT_DONE` (and leaked with the rest of GSP-RM's memory if it cannot be stopped).
pub(crate) struct BootInput {
    _radix3: Pin<KBox<Radix3>>,
    _bootloader: Coherent<[u8]>,
    _signature: Coherent<[u8]>,
    wpr_meta: Coherent<[u8]>,
    /// The booter's own DMA copy, once it ran (Turing to Ada).
    pub(crate) booter: Option<booter::Loaded>,
    /// What the FSP and GSP-FMC read (Hopper and later).
    pub(crate) fmc: Option<FmcInput>,
}

/// The FMC image and `GSP_FMC_BOOT_PARAMS`, in DMA memory.
pub(crate) struct FmcInput {
    pub(crate) _image: Coherent<[u8]>,
    pub(crate) _boot_params: Coherent<[u8]>,
}

impl BootInput {
    /// The WPR meta's DMA address.
    pub(crate) fn wpr_meta(&self) -> u64 {
        self.wpr_meta.dma_address()
    }

    /// The WPR meta's size.
    pub(crate) fn wpr_meta_size(&self) -> usize {
        self.wpr_meta.len()
    }
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
pub(crate) fn halves(address: u64) -> (u32, u32) {
    let [l0, l1, l2, l3, h0, h1, h2, h3] = address.to_le_bytes();
    (
        u32::from_le_bytes([l0, l1, l2, l3]),
        u32::from_le_bytes([h0, h1, h2, h3]),
    )
}

/// GSP-RM's image, bootloader and signature as the firmware files give them.
pub(crate) struct Images<'a> {
    /// `.fwimage` in whole pages, `image_size` bytes of them the image.
    pub(crate) image: VVec<u8>,
    pub(crate) image_size: usize,
    pub(crate) bootloader: &'a [u8],
    /// The bootloader's code, data and manifest offsets.
    pub(crate) offsets: [u32; 3],
    pub(crate) signature: &'a [u8],
}

impl<'a> Images<'a> {
    /// The images of `files`; the image moves out of them.
    pub(crate) fn take(files: &'a mut GspFiles) -> Images<'a> {
        Images {
            image: core::mem::take(&mut files.image),
            image_size: files.image_size,
            bootloader: &files.bootloader,
            offsets: [
                files.bootloader_code_offset,
                files.bootloader_data_offset,
                files.bootloader_manifest_offset,
            ],
            signature: &files.signature,
        }
    }
}

/// What GSP-RM is given and what its starter reads, all allocated before anything runs; WPR2
/// is placed as `placement` says.
pub(crate) fn allocate(
    dev: &Device<Bound>,
    version: FwVersion,
    placement: Placement<'_>,
    images: Images<'_>,
) -> Result<(Shared, BootInput)> {
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
    // One page, as LIBOS reads it: more entries than fit would be cut off silently.
    if libos.len() > LIBOS_ARGS_SIZE {
        return Err(EOVERFLOW);
    }
    libos.resize(LIBOS_ARGS_SIZE, 0, GFP_KERNEL)?;
    let libos = Coherent::from_slice(dev, &libos, GFP_KERNEL)?;

    let radix3 = KBox::pin_init(
        Radix3::new(dev, images.image, images.image_size),
        GFP_KERNEL,
    )?;
    let bootloader = Coherent::from_slice(dev, images.bootloader, GFP_KERNEL)?;
    let signature = Coherent::from_slice(dev, images.signature, GFP_KERNEL)?;
    let mut meta = KVec::new();
    version.write_wpr_meta(
        &WprMetaArgs {
            radix3: radix3.root(),
            image_size: u64::try_from(radix3.size())?,
            bootloader: bootloader.dma_address(),
            bootloader_size: u64::try_from(bootloader.len())?,
            bootloader_offsets: images.offsets.map(u64::from),
            signature: signature.dma_address(),
            signature_size: u64::try_from(signature.len())?,
            placement,
        },
        &mut meta,
    )?;
    let wpr_meta = Coherent::from_slice(dev, &meta, GFP_KERNEL)?;
    Ok((
        Shared::new(queues, rmargs, libos, logs),
        BootInput {
            _radix3: radix3,
            _bootloader: bootloader,
            _signature: signature,
            wpr_meta,
            booter: None,
            fmc: None,
        },
    ))
}

/// Starts GSP-RM through the booter and waits for `GSP_INIT_DONE`. `files` are the boot's
/// firmware contents; `sb` is FWSEC-SB prepared for teardown. Whatever fails after this is
/// called (WPR2 is set: FWSEC-FRTS ran) ends in the chain's teardown before the error returns:
/// GSP-RM stopped, WPR2 cleared, and only then the memory freed (or leaked if a falcon could
/// not be stopped).
pub(crate) fn start(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    args: ChainArgs<'_>,
    files: BootFiles,
    sb: fwsec::Prepared,
) -> Result<Gsp> {
    let BootFiles {
        gsp: mut rm,
        starter,
    } = files;
    let Starter::Booter {
        load: booter_load,
        unload: booter_unload,
    } = starter
    else {
        return Err(EINVAL);
    };
    let ChainArgs {
        spec,
        version,
        boot0,
        layout,
        facts,
    } = args;
    let chipset = spec.chipset;
    let teardown = Teardown::Booter(BooterTeardown {
        chipset,
        boot0,
        sb: Some(sb),
        booter_unload,
    });
    let app_version = rm.bootloader_app_version;
    let images = Images::take(&mut rm);
    let (shared, mut input) = match allocate(dev, version, Placement::Layout(layout), images) {
        Ok(memory) => memory,
        Err(e) => {
            // Nothing of GSP-RM ran: FWSEC-FRTS's WPR2 alone is undone.
            teardown.run(dev, bar, true);
            return Err(e);
        }
    };
    let wpr_meta = halves(input.wpr_meta());
    let mut gsp = Gsp::new(spec, version, shared, teardown);
    let libos = gsp.libos_address();
    let gsp_falcon = Falcon::<GspEngine>::new(bar, chipset);
    let started = Instant::<Monotonic>::now();
    let loaded = gsp
        .queue_boot_commands(facts)
        .and_then(|()| gsp_falcon.reset(boot0))
        .and_then(|()| {
            let (lo, hi) = halves(libos);
            gsp_falcon.write_mailboxes(lo, hi)
        })
        .and_then(|()| booter::run_load(dev, bar, chipset, boot0, &booter_load, wpr_meta));
    match loaded {
        Ok(loaded) => {
            input.booter = Some(loaded);
            gsp.keep_boot_input(input);
        }
        Err(e) => {
            // GSP-RM never started: nothing runs that the unload message could reach. A SEC2
            // that could not be stopped may still read the booter's input: kept for good.
            if e == EBUSY {
                gsp.pin();
            }
            gsp.keep_boot_input(input);
            gsp.set_unreachable();
            gsp.shutdown(dev, bar);
            return Err(if e == EBUSY { EIO } else { e });
        }
    }
    if let Err(e) = run_riscv(dev, &gsp_falcon, app_version) {
        // No GSP-RM to ask to unload: teardown alone.
        gsp.set_unreachable();
        gsp.shutdown(dev, bar);
        return Err(e);
    }
    let up = gsp
        .run_sequence(dev, bar, &gsp_falcon, boot0, libos, app_version)
        .and_then(|()| gsp.wait_init_done(dev, bar, INIT_TIMEOUT))
        // From here on GSP-RM's own word is in MAILBOX0 (its suspend at unload): the LIBOS
        // arguments' address the driver left there goes.
        .and_then(|()| gsp_falcon.write_mailboxes(0, 0));
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
    gsp.drop_boot_input();
    Ok(gsp)
}
