// SPDX-License-Identifier: GPL-2.0

//! The GPU as one object: what probe builds, and what goes, by ownership, when the binding
//! ends.
//!
//! [`Gpu::new`] maps BAR0, identifies the chip ([`crate::chip`]), waits for the GPU's own
//! firmware, loads and validates the GSP firmware, reads what the start needs ([`GspHal`]),
//! sets the DMA mask, then builds the object's parts, each one owning what it started:
//!
//! | part     | built                  | stopped (unbind, or its drop) | its drop frees          |
//! |----------|------------------------|-------------------------------|-------------------------|
//! | `drm`    | last                   | first: nova-drm's device      |                         |
//! | `gsp`    | GSP-RM up              | GSP-RM unloaded and stopped   | its memory, if stopped  |
//! | `master` | bus mastering on       | bus mastering off             |                         |
//! | `flush`  | first: page registered | the page unregistered         | the page, unregistered   |
//!
//! Unbind stops the parts in that order while the device is still bound ([`Gpu::quiesce`]);
//! then the fields drop in declaration order, and a probe that fails drops what it built in the
//! reverse order of building, which is the same order. So the GPU can no longer reach system
//! memory when the flush page goes, and nothing the device may still use is freed before what
//! uses it is stopped.

use kernel::{
    device::{
        Bound,
        Core, //
    },
    new_mutex, pci,
    prelude::*,
    str::CString,
    sync::Mutex,
};

use crate::{
    aux::DrmDevice,
    bar0::{
        read_id,
        SharedBar0, //
    },
    chip::{
        Identified,
        Spec, //
    },
    fb::SysmemFlush,
    firmware::{
        self,
        FwVersion, //
    },
    gsp::{
        hal::{
            GspHal,
            StartArgs, //
        },
        running::{
            self,
            RunningGsp,
            Shared, //
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
    untrusted::Untrusted,
};

mod bus;

use bus::BusMaster;

/// A bound GPU whose GSP-RM runs; its parts in teardown order (see the module's table).
#[pin_data]
pub(crate) struct Gpu<'bound> {
    /// nova-drm's device, until [`Gpu::quiesce`] takes it.
    #[pin]
    drm: Mutex<Option<DrmDevice<'bound>>>,
    #[pin]
    gsp: RunningGsp<'bound>,
    master: BusMaster<'bound>,
    flush: SysmemFlush,
}

impl<'bound> Gpu<'bound> {
    /// Probe: builds the GPU on `pdev` up to a running GSP-RM and nova-drm's device. A step that
    /// fails names what was wrong in one line and undoes what came before it.
    pub(crate) fn new<'a>(
        pdev: &'bound pci::Device<Core<'a>>,
    ) -> impl PinInit<Self, Error> + use<'bound, 'a> {
        pin_init::pin_init_scope(move || {
            let dev: &'bound kernel::device::Device<Bound> = pdev.as_ref();
            pdev.enable_device_mem()?;

            check_bar0(pdev)?;
            let bar = SharedBar0::new(pdev.iomap_region_sized::<BAR0_SIZE>(0, c"nova_core/bar0")?)?;
            let id = identify(pdev, &bar)?;
            let spec = id.spec;
            dev_info!(pdev, "NVIDIA ({})\n", spec);
            let hal = GspHal::of(&spec);
            hal.wait_ready(dev, &bar)?;

            let mut fw = firmware::load(dev, &spec, forced_version(pdev)?)?;
            dev_info!(pdev, "GSP firmware {} validated\n", fw.version);
            let plan = hal.prepare(dev, &bar, &id, &fw)?;
            let facts = system_facts(pdev, &spec)?;
            let files = fw.boot.take().ok_or(ENOENT)?;
            let dir = CString::try_from_fmt(fmt!("nova_core-{}", dev.name()))?;

            // Built in the reverse order of the fields: each part stands on the ones after it.
            bus::set_dma_mask(pdev, &spec)?;
            let vectors = running::alloc_vector(pdev)?;
            Ok(try_pin_init!(Gpu {
                flush: SysmemFlush::register(dev, &bar, &spec)?,
                master: BusMaster::enable(pdev),
                gsp <- {
                    let args = StartArgs {
                        spec,
                        fw: &fw,
                        facts: &facts,
                    };
                    let gsp = plan.start(dev, &bar, args, files)?;
                    RunningGsp::new(
                        dev,
                        vectors,
                        crate::debugfs::device_dir(&dir, Shared::new(&bar, gsp)),
                    )
                },
                _: {
                    gsp.greet()?;
                    gsp.take_interrupt(&spec)?;
                },
                // GSP-RM is up: the DRM driver may stand on it.
                drm <- new_mutex!(Some(DrmDevice::register(dev)?)),
            }))
        })
    }

    /// Unbind: stops what the GPU started, in the fields' order, while the device is still
    /// bound to the driver (its remove): nova-drm's device (taken out of the lock first:
    /// nova-drm's unbind does not run under it), GSP-RM, bus mastering, the flush page. What is
    /// left (memory, the mapping) goes when the GPU drops; a probe that fails undoes the same
    /// steps through the drops alone.
    pub(crate) fn quiesce(&self) {
        let drm = self.drm.lock().take();
        drop(drm);
        self.gsp.stop();
        self.master.clear();
        self.flush.unregister();
    }
}

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

/// The firmware version forced by the `gsp_version` module parameter, if any.
fn forced_version(pdev: &pci::Device<Core<'_>>) -> Result<Option<FwVersion>> {
    let param = crate::module_parameters::gsp_version.value();
    if param == 0 {
        return Ok(None);
    }
    FwVersion::from_param(param).map(Some).map_err(|e| {
        dev_err!(pdev, "{}\n", e);
        EINVAL
    })
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
        .validate_ref_against::<SystemFacts, _>(spec.family().pci_config_mirror)
        .map_err(|e| {
            dev_err!(pdev, "cannot describe the GPU to the GSP: {}\n", e);
            ENODEV
        })
}
