// SPDX-License-Identifier: GPL-2.0

//! PCI binding: matches NVIDIA display-class functions, maps BAR0, identifies the chip and loads
//! its GSP firmware.
//!
//! The BAR0 mapping is part of the per-device data, whose lifetime is the binding: when the
//! device is unbound or the module removed, the data and with it the mapping are dropped, so no
//! access to the device can happen afterwards.

use kernel::{
    device::Core,
    io::Io,
    pci,
    pci::{
        Class,
        ClassMask,
        Vendor, //
    },
    prelude::*,
    sizes::SZ_16M, //
};

use crate::{
    firmware,
    firmware::FwVersion,
    gpu::{
        IdRegs,
        Spec, //
    },
    regs,
    untrusted::Untrusted,
};

/// Size of the BAR0 window the driver maps; every register it reads lies inside it.
const BAR0_SIZE: usize = SZ_16M;

/// BAR0 of a bound device.
pub(crate) type Bar0<'bound> = pci::Bar<'bound, BAR0_SIZE>;

/// The PCI driver.
pub(crate) struct NovaCore;

/// Per-device data: lives exactly as long as the binding, and so does the BAR0 mapping.
pub(crate) struct NovaCoreData<'bound> {
    _bar: Bar0<'bound>,
    _spec: Spec,
    _firmware: firmware::GspFirmware,
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

/// Reads the identification registers and validates them into a [`Spec`].
fn identify(pdev: &pci::Device<Core<'_>>, bar: &Bar0<'_>) -> Result<Spec> {
    let raw = Untrusted::new_untrusted(IdRegs {
        boot0: bar.read(regs::NV_PMC_BOOT_0),
        boot42: bar.read(regs::NV_PMC_BOOT_42),
    });
    {
        // UNTRUSTED: the raw values are only printed, at debug level.
        let regs = raw.untrusted();
        dev_dbg!(
            pdev,
            "NV_PMC_BOOT_0 = {:#010x}, NV_PMC_BOOT_42 = {:#010x}\n",
            regs.boot0.into_raw(),
            regs.boot42.into_raw()
        );
    }
    raw.validate::<Spec>().map_err(|e| {
        // UNTRUSTED: the raw values are only printed, to name what was rejected.
        let regs = raw.untrusted();
        dev_err!(
            pdev,
            "unsupported GPU: {} (NV_PMC_BOOT_0 = {:#010x}, NV_PMC_BOOT_42 = {:#010x})\n",
            e.reason(),
            regs.boot0.into_raw(),
            regs.boot42.into_raw()
        );
        e.errno()
    })
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
        pdev.enable_device_mem()?;
        pdev.set_master();

        let bar = pdev.iomap_region_sized::<BAR0_SIZE>(0, c"nova_core/bar0")?;
        let spec = identify(pdev, &bar)?;
        dev_info!(pdev, "NVIDIA ({})\n", spec);

        let forced = forced_version(pdev)?;
        let fw = firmware::load(pdev.as_ref(), &spec, forced)?;
        dev_info!(pdev, "GSP firmware {} validated\n", fw.version);
        let gsp = crate::gsp::interface(fw.version);
        dev_dbg!(pdev, "GSP interface {} selected\n", gsp.version());

        Ok(NovaCoreData {
            _bar: bar,
            _spec: spec,
            _firmware: fw,
        })
    }
}
