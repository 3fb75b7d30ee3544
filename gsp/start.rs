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
    fb::{
        layout::FbLayout,
        sizes::FmcSizes, //
    },
    firmware::{
        FmcFiles,
        GspFiles, //
    },
    gsp::{
        encode::{
            write_libos_args,
            FmcBootArgs,
            LibosRegion,
            Sink,
            WprMetaArgs, //
        },
        interface::{
            Fmc,
            Interface, //
        },
        libos::{
            libos_id8,
            GSP_PAGE,
            LIBOS_ARGS_SIZE, //
        },
        logs::{
            Logs,
            LOG_SIZE, //
        },
        queues::Queues,
        radix3::Radix3,
        shared::CoherentMemory,
    },
};

/// How long GSP-RM's RISC-V core may take to run once its starter is done (the booter halted,
/// or GSP-FMC released the lockdown): nova-core's bound (`nova-core/gsp/boot.rs`, `boot`, 5 s);
/// nouveau looks once (`nvkm/subdev/gsp/rm/r535/gsp.c`, `r535_gsp_init`).
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
    image: Coherent<[u8]>,
    boot_params: Coherent<[u8]>,
}

impl FmcInput {
    /// The FMC image of `files`, and `GSP_FMC_BOOT_PARAMS` as the version's `part` writes it:
    /// the WPR meta of `input`, the LIBOS arguments at `libos`.
    pub(crate) fn new(
        dev: &Device<Bound>,
        part: &Fmc,
        files: &FmcFiles,
        input: &BootInput,
        libos: u64,
    ) -> Result<FmcInput> {
        let image = Coherent::from_slice(dev, &files.image, GFP_KERNEL)?;
        let mut params = KVec::new();
        (part.write_boot_params)(
            &FmcBootArgs {
                wpr_meta: input.wpr_meta(),
                wpr_meta_size: u32::try_from(input.wpr_meta_size())?,
                libos,
            },
            &mut params,
        )?;
        let boot_params = Coherent::from_slice(dev, &params, GFP_KERNEL)?;
        Ok(FmcInput { image, boot_params })
    }

    /// The FMC image's DMA address.
    pub(crate) fn image(&self) -> u64 {
        self.image.dma_address()
    }

    /// `GSP_FMC_BOOT_PARAMS`' DMA address.
    pub(crate) fn boot_params(&self) -> u64 {
        self.boot_params.dma_address()
    }
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

/// Who places WPR2's regions in video memory.
pub(crate) enum Placement<'a> {
    /// The driver (Turing to Ada): the booter gets every region's offset.
    Layout(&'a FbLayout),
    /// GSP-FMC (Hopper and later): it gets the sizes, every offset left 0, in the WPR meta of
    /// the version's GSP-FMC part.
    Sizes(&'a FmcSizes, &'a Fmc),
}

/// What GSP-RM of version `V` is given and what its starter reads, all allocated before
/// anything runs; WPR2 is placed as `placement` says. The version's writers are called from
/// here; the rest is [`allocate_with`], compiled once for every version.
pub(crate) fn allocate<V: Interface>(
    dev: &Device<Bound>,
    placement: Placement<'_>,
    images: Images<'_>,
) -> Result<(Shared, BootInput)> {
    allocate_with(
        dev,
        images,
        &mut |q, out| V::write_rmargs(q.base, q.pages, q.cmdq, q.statq, out),
        &mut |args, out| match placement {
            Placement::Layout(layout) => V::write_wpr_meta(args, layout, out),
            Placement::Sizes(sizes, fmc) => (fmc.write_wpr_meta)(args, sizes, out),
        },
    )
}

/// Where the queues are, as `GSP_ARGUMENTS_CACHED` tells GSP-RM.
#[derive(Clone, Copy)]
pub(crate) struct QueuePlace {
    /// The shared region's DMA address and its pages.
    pub(crate) base: u64,
    pub(crate) pages: u32,
    /// The command and status queues' offsets in it.
    pub(crate) cmdq: u64,
    pub(crate) statq: u64,
}

/// [`allocate`] with the version's writers of RMARGS (`write_rmargs`) and of the WPR meta
/// (`write_meta`).
fn allocate_with(
    dev: &Device<Bound>,
    images: Images<'_>,
    write_rmargs: &mut dyn FnMut(QueuePlace, &mut dyn Sink) -> Result,
    write_meta: &mut dyn FnMut(&WprMetaArgs, &mut dyn Sink) -> Result,
) -> Result<(Shared, BootInput)> {
    let (queues, rmargs) = queues_and_rmargs(dev, write_rmargs)?;
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
    let args = WprMetaArgs {
        radix3: radix3.root(),
        image_size: u64::try_from(radix3.size())?,
        bootloader: bootloader.dma_address(),
        bootloader_size: u64::try_from(bootloader.len())?,
        bootloader_offsets: images.offsets.map(u64::from),
        signature: signature.dma_address(),
        signature_size: u64::try_from(signature.len())?,
    };
    write_meta(&args, &mut meta)?;
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

/// The command queue, its region and RMARGS (the queues' place), which `write_rmargs` writes.
fn queues_and_rmargs(
    dev: &Device<Bound>,
    write_rmargs: &mut dyn FnMut(QueuePlace, &mut dyn Sink) -> Result,
) -> Result<(Queues<CoherentMemory>, Coherent<[u8]>)> {
    let region = CoherentMemory::new(dev)?;
    let base = region.dma_address();
    let queues = Queues::new(region, base)?;
    let (cmdq, statq) = queues.offsets();
    dev_dbg!(
        dev,
        "GSP queues: {} pages at DMA {:#x}, command queue at +{:#x}, status queue at +{:#x}\n",
        queues.pages(),
        base,
        cmdq,
        statq
    );
    let place = QueuePlace {
        base,
        pages: u32::try_from(queues.pages())?,
        cmdq: u64::try_from(cmdq)?,
        statq: u64::try_from(statq)?,
    };
    let mut rmargs = KVec::new();
    write_rmargs(place, &mut rmargs)?;
    // LIBOS maps whole pages: the region is one page, the arguments at its start.
    if rmargs.len() > GSP_PAGE {
        return Err(EOVERFLOW);
    }
    rmargs.resize(GSP_PAGE, 0, GFP_KERNEL)?;
    Ok((queues, Coherent::from_slice(dev, &rmargs, GFP_KERNEL)?))
}

/// The memory the GSP was given the addresses of.
pub(crate) struct Shared {
    queues: Queues<CoherentMemory>,
    rmargs: Coherent<[u8]>,
    libos: Coherent<[u8]>,
    /// GSP-RM's log buffers, shared with debugfs; leaked with the rest, this reference keeps
    /// them allocated for good.
    logs: Arc<Logs>,
    /// What the booter reads, until `GSP_INIT_DONE`.
    boot_input: Option<BootInput>,
}

impl Shared {
    fn new(
        queues: Queues<CoherentMemory>,
        rmargs: Coherent<[u8]>,
        libos: Coherent<[u8]>,
        logs: Arc<Logs>,
    ) -> Shared {
        Shared {
            queues,
            rmargs,
            libos,
            logs,
            boot_input: None,
        }
    }

    /// The LIBOS arguments' DMA address.
    pub(crate) fn libos_address(&self) -> u64 {
        self.libos.dma_address()
    }

    /// The command and status queues.
    pub(crate) fn queues(&mut self) -> &mut Queues<CoherentMemory> {
        &mut self.queues
    }

    /// GSP-RM's log buffers.
    pub(crate) fn logs(&self) -> &Arc<Logs> {
        &self.logs
    }

    /// Keeps what the booter reads (until `GSP_INIT_DONE`), or lets it go.
    pub(crate) fn keep_boot_input(&mut self, input: Option<BootInput>) {
        self.boot_input = input;
    }

    /// Leaks the DMA memory (the GSP may still use it); the driver's own buffers go.
    pub(crate) fn leak(self) {
        core::mem::forget((
            self.queues.into_memory(),
            self.rmargs,
            self.libos,
            self.logs,
            self.boot_input,
        ));
    }
}
