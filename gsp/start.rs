// SPDX-License-Identifier: GPL-2.0

//! What both of GSP-RM's starters work from, the booter (Turing to Ada, [`super::chain`]) and
//! the FSP (Hopper and later, [`super::fsp_chain`]): the memory GSP-RM is given (the queues and
//! RMARGS, the log buffers, the LIBOS arguments), its image, bootloader and signature in DMA
//! memory with the WPR meta naming them ([`allocate`]), kept until `GSP_INIT_DONE`
//! ([`BootInput`]), and the start of its RISC-V core once the starter is done ([`run_riscv`]).

use kernel::{
    device::{
        Bound,
        Device, //
    },
    dma::Coherent,
    prelude::*,
    sync::Arc,
    time::Delta,
};

use crate::{
    booter,
    falcon::{
        gsp::Gsp as GspEngine,
        Falcon, //
    },
    firmware::{
        FwVersion,
        GspFiles, //
    },
    gsp::{
        boot::{
            libos_id8,
            Shared,
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
    },
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

/// GSP-RM's image, bootloader and signature as the firmware files give them.
pub(crate) struct Images<'a> {
    /// `.fwimage` in whole pages, `image_size` bytes of them the image.
    image: VVec<u8>,
    image_size: usize,
    bootloader: &'a [u8],
    /// The bootloader's code, data and manifest offsets.
    offsets: [u32; 3],
    signature: &'a [u8],
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
