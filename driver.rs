// SPDX-License-Identifier: GPL-2.0

//! PCI binding: matches NVIDIA display-class functions, enables them and maps BAR0.

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

use crate::regs;

/// Size of the BAR0 window the driver maps; every register it reads lies inside it.
const BAR0_SIZE: usize = SZ_16M;

/// The PCI driver.
pub(crate) struct NovaCore;

/// Per-device data: lives exactly as long as the binding, and so does the BAR0 mapping.
pub(crate) struct NovaCoreData<'bound> {
    _bar: pci::Bar<'bound, BAR0_SIZE>,
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
        let boot0 = bar.read(regs::NV_PMC_BOOT_0);
        dev_info!(pdev, "NV_PMC_BOOT_0: {:#010x}\n", boot0.into_raw());

        Ok(NovaCoreData { _bar: bar })
    }
}
