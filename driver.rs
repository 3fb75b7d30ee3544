// SPDX-License-Identifier: GPL-2.0

//! PCI binding: matches NVIDIA display-class functions, maps BAR0, identifies the chip and loads
//! its GSP firmware.
//!
//! The BAR0 mapping is part of the per-device data, whose lifetime is the binding: when the
//! device is unbound or the module removed, the data and with it the mapping are dropped, so no
//! access to the device can happen afterwards. The mapping and the running GSP are shared with
//! the device's debugfs files ([`Binding`]); unbind unregisters the auxiliary device nova-drm
//! stands on, then takes the GSP back and stops it before the files and the mapping go.

use kernel::{
    bindings,
    debugfs::Scope,
    device::Core,
    dma::{
        Device as _,
        DmaMask, //
    },
    new_mutex, pci,
    pci::{
        Class,
        ClassMask,
        Vendor, //
    },
    prelude::*,
    sizes::SZ_16M,
    str::CString,
    sync::{
        Arc,
        Mutex, //
    },
};

use crate::{
    aux::DrmDevice,
    bar0::{
        read_id,
        SharedBar0, //
    },
    fb::SysmemFlush,
    firmware,
    firmware::FwVersion,
    gpu::{
        Identified,
        Spec, //
    },
    gsp::{
        boot::Gsp,
        logs::Logs,
        teardown::{
            BooterTeardown,
            Teardown, //
        },
    },
    pci::{
        Bar0Len,
        PciFunction,
        ReportedBar,
        SubsystemIds,
        SystemFacts,
        BAR0_SIZE, //
    },
    prom::{
        Rom,
        RomError, //
    },
    untrusted::Untrusted,
};

const _: () = assert!(BAR0_SIZE == SZ_16M);

/// The PCI driver.
pub(crate) struct NovaCore;

/// Per-device data: lives exactly as long as the binding, and so does the BAR0 mapping.
#[pin_data]
pub(crate) struct NovaCoreData<'bound> {
    /// The auxiliary device nova-drm binds to (while GSP-RM runs), until unbind takes it; first
    /// here, so that it also goes first.
    #[pin]
    drm: Mutex<Option<DrmDevice<'bound>>>,
    _spec: Spec,
    _firmware: firmware::GspFirmware,
    /// Shared with the device's debugfs directory, which goes before it.
    #[pin]
    binding: Scope<Binding>,
}

/// What the binding shares with the device's debugfs files (whose data must not borrow): BAR0
/// and the running GSP.
#[pin_data]
pub(crate) struct Binding {
    pub(crate) bar: SharedBar0,
    /// The running GSP, until unbind takes it.
    #[pin]
    pub(crate) gsp: Mutex<Option<Gsp>>,
    /// The sysmem flush page (Turing to Ada, when the GSP runs): unregistered by unbind, freed
    /// with the binding.
    flush: Option<SysmemFlush>,
    /// GSP-RM's log buffers (the chain through the booter), read through debugfs; the GSP
    /// holds them too, and keeps them for good if it cannot be stopped.
    pub(crate) logs: Option<Arc<Logs>>,
}

impl Binding {
    /// Whether the device's GSP runs (and has not been taken by unbind).
    pub(crate) fn has_gsp(&self) -> bool {
        self.gsp.lock().is_some()
    }
}

kernel::pci_device_table!(
    PCI_TABLE,
    <NovaCore as pci::Driver>::IdInfo,
    [
        // GSP-based NVIDIA GPUs show up as VGA or as 3D controllers.
        (
            pci::DeviceId::from_class_and_vendor(
                Class::DISPLAY_VGA,
                ClassMask::ClassSubclass,
                Vendor::NVIDIA
            ),
            ()
        ),
        (
            pci::DeviceId::from_class_and_vendor(
                Class::DISPLAY_3D,
                ClassMask::ClassSubclass,
                Vendor::NVIDIA
            ),
            ()
        ),
    ]
);

/// Checks that BAR0 exists and holds every register the driver reads, before mapping it.
fn check_bar0(pdev: &pci::Device<Core<'_>>) -> Result {
    Untrusted::new_untrusted(pdev.resource_len(0)?)
        .validate::<Bar0Len>()
        .map(|_| ())
        .map_err(|e| {
            dev_err!(pdev, "{}\n", e);
            ENODEV
        })
}

/// Reads the identification registers and validates them into a [`Spec`], with the registers
/// it was validated from.
fn identify(pdev: &pci::Device<Core<'_>>, bar: &SharedBar0) -> Result<Identified> {
    let id = bar.with(read_id)?.validate::<Identified>().map_err(|e| {
        dev_err!(pdev, "unsupported GPU: {}\n", e);
        ENODEV
    })?;
    dev_dbg!(pdev, "{}\n", id.regs);
    Ok(id)
}

/// Reads the VBIOS through the PROM window and validates it: the FWSEC ucode the GSP boot of
/// Turing to Ada runs (the boot itself is issue 14's next part). A ROM that lies fails probe
/// with one line naming what was wrong.
fn read_vbios(pdev: &pci::Device<Core<'_>>, bar: &SharedBar0) -> Result<Rom> {
    let rom = Rom::read(bar).map_err(|e| match e {
        RomError::Invalid(e) => {
            dev_err!(pdev, "VBIOS: {}\n", e);
            EINVAL
        }
        RomError::Window(e) => {
            dev_err!(
                pdev,
                "VBIOS: cannot read the PROM window (error {})\n",
                e.to_errno()
            );
            e
        }
    })?;
    if let Ok(vbios) = rom.vbios() {
        dev_dbg!(pdev, "VBIOS: {:#x} bytes read: {}\n", rom.len(), vbios);
    }
    Ok(rom)
}

/// What the GSP boot starts from, per family.
enum Chain {
    /// Turing to Ada.
    Fwsec(FwsecChain),
    /// Hopper and later: the sizes GSP-FMC is given.
    Fsp(crate::fb::sizes::FmcSizes),
}

/// What the GSP boot of Turing to Ada starts from: the VBIOS read, the framebuffer layout and
/// `NV_PMC_BOOT_0` as identified.
struct FwsecChain {
    rom: Rom,
    layout: crate::fb::layout::FbLayout,
    boot0: u32,
}

impl FwsecChain {
    /// The VBIOS read at probe, for FWSEC-FRTS and FWSEC-SB; one that does not parse is named
    /// in one line.
    fn vbios(&self, pdev: &pci::Device<Core<'_>>) -> Result<crate::vbios::Vbios<'_>> {
        self.rom.vbios().map_err(|e| {
            dev_err!(pdev, "VBIOS: {}\n", e);
            EINVAL
        })
    }
}

/// The firmware version forced by the `gsp_version` module parameter, if any.
fn forced_version(pdev: &pci::Device<Core<'_>>) -> Result<Option<FwVersion>> {
    let major = crate::module_parameters::gsp_version.value();
    if major == 0 {
        return Ok(None);
    }
    match FwVersion::from_major(major) {
        Some(v) => Ok(Some(v)),
        None => {
            dev_err!(
                pdev,
                "gsp_version={}: not a supported version (570 or 535)\n",
                major
            );
            Err(EINVAL)
        }
    }
}

impl pci::Driver for NovaCore {
    type IdInfo = ();
    type Data<'bound> = NovaCoreData<'bound>;
    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        _info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        pin_init::pin_init_scope(move || {
            pdev.enable_device_mem()?;

            check_bar0(pdev)?;
            let bar = SharedBar0::new(pdev.iomap_region_sized::<BAR0_SIZE>(0, c"nova_core/bar0")?)?;
            let id = identify(pdev, &bar)?;
            let spec = id.spec;
            dev_info!(pdev, "NVIDIA ({})\n", spec);
            // The GPU's own firmware must be done before the driver reads what it set up:
            // GFW boot on Turing to Ada, the FSP's boot from Hopper on.
            if spec.architecture().boots_through_fwsec() {
                crate::devinit::wait_gfw_boot(pdev.as_ref(), &bar)?;
            } else {
                let hal = crate::fsp::hal::FspHal::of(spec.chipset).ok_or(ENODEV)?;
                crate::fsp::Fsp::new(&bar, hal).wait_ready(pdev.as_ref())?;
            }

            let forced = forced_version(pdev)?;
            let mut fw = firmware::load(pdev.as_ref(), &spec, forced)?;
            dev_info!(pdev, "GSP firmware {} validated\n", fw.version);
            let chain = if spec.architecture().boots_through_fwsec() {
                let rom = read_vbios(pdev, &bar)?;
                let layout = crate::fb::read_layout(pdev.as_ref(), &bar, &spec, &fw)?;
                Chain::Fwsec(FwsecChain {
                    rom,
                    layout,
                    boot0: id.regs.boot0,
                })
            } else {
                Chain::Fsp(crate::fb::read_fmc_sizes(pdev.as_ref(), &bar, &spec, &fw)?)
            };

            // Before the GSP starts: after it, only the auxiliary device's registration can fail,
            // and its failure stops the GSP.
            let dir = CString::try_from_fmt(fmt!("nova_core-{}", pdev.as_ref().name()))?;
            let files = fw.boot.take().ok_or(ENOENT)?;
            let (gsp, flush) = match &chain {
                // Turing to Ada: the chain through FWSEC and the booter, as silicon needs it.
                Chain::Fwsec(chain) => start_gsp_chain(pdev, &bar, spec, &fw, chain, files)?,
                // Hopper and later: the FSP starts GSP-FMC, which starts GSP-RM.
                Chain::Fsp(sizes) => start_gsp_fsp(pdev, &bar, spec, &fw, sizes, files)?,
            };

            // GSP-RM is up: the DRM driver may stand on it. A registration that fails stops
            // what started.
            let drm = match DrmDevice::register(pdev.as_ref()) {
                Ok(drm) => drm,
                Err(e) => {
                    stop(pdev, &bar, Some(gsp), Some(&flush));
                    return Err(e);
                }
            };

            Ok(try_pin_init!(NovaCoreData {
                drm <- new_mutex!(Some(drm)),
                _spec: spec,
                _firmware: fw,
                binding <- crate::debugfs::device_dir(
                    &dir,
                    try_pin_init!(Binding {
                        bar,
                        logs: gsp.logs(),
                        gsp <- new_mutex!(Some(gsp)),
                        flush: Some(flush),
                    }),
                ),
            }))
        })
    }

    fn unbind<'bound>(pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        // nova-drm's device goes first (the auxiliary bus unbinds nova-drm from it); then the
        // GSP, stopped (or, if it cannot be, its memory leaked) before anything is freed; a
        // benchmark running from debugfs ends first.
        // Taken out of the lock first: nova-drm's removal does not run under it.
        let drm = this.drm.lock().take();
        if let Some(drm) = drm {
            drm.unregister(pdev.as_ref());
        }
        let gsp = this.binding.gsp.lock().take();
        stop(pdev, &this.binding.bar, gsp, this.binding.flush.as_ref());
    }
}

/// Stops what probe started, at unbind and when probe fails after the GSP came up: GSP-RM
/// (its memory leaked if it cannot be stopped), then the sysmem flush page (after the falcon's
/// last reset, whose handshake writes to it, and before it is freed), then bus mastering.
fn stop(
    pdev: &pci::Device<Core<'_>>,
    bar: &SharedBar0,
    gsp: Option<Gsp>,
    flush: Option<&SysmemFlush>,
) {
    let started = gsp.is_some() || flush.is_some();
    if let Some(gsp) = gsp {
        gsp.shutdown(pdev.as_ref(), bar);
    }
    if let Some(flush) = flush {
        flush.unregister(bar);
    }
    if started {
        clear_master(pdev);
    }
}

/// Sets the DMA mask of `spec`'s family and turns bus mastering on: the GPU reads and writes
/// system memory from here on (FWSEC's image, the booter's input, the GSP's memory); every
/// failure turns it off again.
fn enable_dma(pdev: &pci::Device<Core<'_>>, spec: &Spec) -> Result {
    let bits = spec.architecture().dma_address_bits();
    // SAFETY: Nothing allocates or maps DMA memory for this device concurrently: probe runs
    // under the device lock, and the driver allocates for the device only from its probe
    // (below) and frees only from its unbind, which cannot overlap.
    unsafe { pdev.dma_set_mask_and_coherent(DmaMask::try_new(bits)?)? };
    pdev.set_master();
    Ok(())
}

/// Asks a GSP that came up for its static information and logs the line that says it is up;
/// a GSP that does not answer is stopped, and `undo` runs, before the error returns.
fn greet(
    pdev: &pci::Device<Core<'_>>,
    bar: &SharedBar0,
    version: FwVersion,
    mut gsp: Gsp,
    undo: impl FnOnce(),
) -> Result<Gsp> {
    let dev = pdev.as_ref();
    match gsp.static_info(dev, bar) {
        Ok(info) => {
            dev_info!(pdev, "GSP {} up: {}\n", version, info.name());
            Ok(gsp)
        }
        Err(e) => {
            gsp.shutdown(dev, bar);
            undo();
            Err(e)
        }
    }
}

/// Starts GSP-RM through FWSEC-FRTS and the booter (Turing to Ada, `docs/boot-chain.md`) and
/// asks for its static information; a GSP that does not come up is stopped (and torn down)
/// before the error returns. The sysmem flush page comes back with the GSP, for the binding to
/// keep.
fn start_gsp_chain(
    pdev: &pci::Device<Core<'_>>,
    bar: &SharedBar0,
    spec: Spec,
    fw: &firmware::GspFirmware,
    chain: &FwsecChain,
    files: firmware::BootFiles,
) -> Result<(Gsp, SysmemFlush)> {
    let firmware::BootFiles {
        gsp: rm,
        starter: firmware::Starter::Booter { load, unload },
    } = files
    else {
        return Err(EINVAL);
    };
    let facts = system_facts(pdev, &spec)?;
    enable_dma(pdev, &spec)?;
    let dev = pdev.as_ref();
    // Teardown (FWSEC-SB, made before FWSEC-FRTS sets WPR2, while the VBIOS is at hand, and
    // `booter_unload`): every failure once WPR2 is set undoes it.
    let sb = chain
        .vbios(pdev)
        .and_then(|vbios| {
            crate::fwsec::prepare(
                dev,
                bar,
                spec.chipset,
                &vbios,
                crate::fwsec::image::FwsecCommand::Sb,
            )
        })
        .inspect_err(|_| clear_master(pdev))?;
    let teardown = BooterTeardown {
        chipset: spec.chipset,
        boot0: chain.boot0,
        sb: Some(sb),
        booter_unload: unload,
    };
    let (flush, teardown) = run_fwsec_frts(pdev, bar, &spec, chain, teardown)?;
    let undo = || {
        flush.unregister(bar);
        clear_master(pdev);
    };
    let args = crate::gsp::chain::ChainArgs {
        spec,
        version: fw.version,
        boot0: chain.boot0,
        layout: &chain.layout,
        facts: &facts,
    };
    let gsp =
        crate::gsp::chain::start(dev, bar, args, rm, load, teardown).inspect_err(|_| undo())?;
    Ok((greet(pdev, bar, fw.version, gsp, undo)?, flush))
}

/// Starts GSP-RM through the FSP (Hopper and later, `docs/fsp-chain.md`) and asks for its static
/// information; a GSP that does not come up is stopped before the error returns. The sysmem
/// flush page comes back with the GSP, for the binding to keep.
fn start_gsp_fsp(
    pdev: &pci::Device<Core<'_>>,
    bar: &SharedBar0,
    spec: Spec,
    fw: &firmware::GspFirmware,
    sizes: &crate::fb::sizes::FmcSizes,
    files: firmware::BootFiles,
) -> Result<(Gsp, SysmemFlush)> {
    let facts = system_facts(pdev, &spec)?;
    enable_dma(pdev, &spec)?;
    let dev = pdev.as_ref();
    let flush = SysmemFlush::register(dev, bar, &spec).inspect_err(|_| clear_master(pdev))?;
    let undo = || {
        flush.unregister(bar);
        clear_master(pdev);
    };
    let args = crate::gsp::fsp_chain::FspArgs {
        spec,
        version: fw.version,
        sizes,
        facts: &facts,
    };
    let gsp = crate::gsp::fsp_chain::start(dev, bar, args, files).inspect_err(|_| undo())?;
    Ok((greet(pdev, bar, fw.version, gsp, undo)?, flush))
}

/// The part of the GSP boot that runs before GSP-RM on Turing to Ada (bus mastering on): the
/// sysmem flush page, WPR2 not yet set, FWSEC-FRTS (which leaves the GSP falcon reset for what
/// follows). A FWSEC-FRTS that failed once WPR2 was set is undone by `teardown` (FWSEC-SB,
/// `booter_unload`: the next probe finds WPR2 clear); then every failure unregisters the page
/// and turns bus mastering off again. The teardown comes back for GSP-RM's start.
fn run_fwsec_frts(
    pdev: &pci::Device<Core<'_>>,
    bar: &SharedBar0,
    spec: &Spec,
    chain: &FwsecChain,
    teardown: BooterTeardown,
) -> Result<(SysmemFlush, BooterTeardown)> {
    let dev = pdev.as_ref();
    let flush = SysmemFlush::register(dev, bar, spec).inspect_err(|_| clear_master(pdev))?;
    let fail = |flush: SysmemFlush, e: Error| {
        flush.unregister(bar);
        clear_master(pdev);
        Err(e)
    };
    if let Err(e) = crate::fb::check_wpr2_unset(dev, bar) {
        // Not this probe's WPR2: left as it is (the GPU needs a reset).
        return fail(flush, e);
    }
    let ran = chain.vbios(pdev).and_then(|vbios| {
        crate::fwsec::run_frts(dev, bar, spec.chipset, chain.boot0, &vbios, &chain.layout)
    });
    match ran {
        Ok(()) => Ok((flush, teardown)),
        Err(e) => {
            if matches!(crate::fb::wpr2(bar), Ok(crate::fb::layout::Wpr2::Set(_))) {
                // Nothing of GSP-RM ran: WPR2 alone is undone.
                Teardown::Booter(teardown).run(dev, bar, true);
            }
            fail(flush, e)
        }
    }
}

/// Turns bus mastering off: the device may no longer reach system memory. Through the PCI
/// core's `pci_clear_master`, which keeps its record of it (`is_busmaster`, which the PCI
/// core's power management restores on resume, `pci_pm_reenable_device`) true, unlike a write
/// of the command register; Linux 7.3's kernel crate has `pci::Device::set_master` but not this
/// counterpart.
fn clear_master(pdev: &pci::Device<Core<'_>>) {
    let raw = core::ptr::from_ref(pdev)
        .cast::<bindings::pci_dev>()
        .cast_mut();
    // SAFETY: `pci::Device` is `#[repr(transparent)]` over `Opaque<bindings::pci_dev>` (itself
    // transparent over the C struct) and, by its invariant, represents a valid `struct pci_dev`:
    // `raw` points to it, as the pointer the kernel crate's own `set_master` passes to
    // `pci_set_master`. `pci_clear_master` reads and writes the device's command register and
    // the `is_busmaster` bit-field; the `Core` context means the device lock is held, which
    // serialises it against the PCI core's other writers of that word, as for `set_master`.
    unsafe { bindings::pci_clear_master(raw) };
}

/// What `GSP_SET_SYSTEM_INFO` tells the GSP about this PCI function, validated from what the
/// function reports.
fn system_facts(pdev: &pci::Device<Core<'_>>, spec: &Spec) -> Result<SystemFacts> {
    let bar = |n| -> Result<ReportedBar> {
        Ok(ReportedBar {
            start: pdev.resource_start(n)?,
            len: pdev.resource_len(n)?,
        })
    };
    let function = Untrusted::new_untrusted(PciFunction {
        bar0: bar(0)?,
        bar1: bar(1)?,
        bar3: bar(3)?,
        bus_device_function: u64::from(pdev.dev_id()),
        vendor_id: pdev.vendor_id().as_raw(),
        device_id: pdev.device_id(),
        subsystem: SubsystemIds {
            vendor: pdev.subsystem_vendor_id(),
            device: pdev.subsystem_device_id(),
        },
        revision_id: pdev.revision_id(),
    });
    function
        .validate_ref_against::<SystemFacts, _>(spec.architecture())
        .map_err(|e| {
            dev_err!(pdev, "cannot describe the GPU to the GSP: {}\n", e);
            ENODEV
        })
}
