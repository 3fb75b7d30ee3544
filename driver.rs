// SPDX-License-Identifier: GPL-2.0

//! The PCI binding: NVIDIA display-class functions, each bound to a [`Gpu`] for as long as the
//! binding lasts.
//!
//! Probe builds the GPU ([`Gpu::new`]); the GPU is the binding's device data. Unbind (the
//! device's remove, at sysfs unbind and `rmmod`) stops what probe started, in order, while the
//! device is still bound ([`Gpu::quiesce`]: nova-drm's device, GSP-RM, bus mastering, the
//! sysmem flush page); the driver core then drops the GPU, and with it, by ownership, the
//! memory and the BAR0 mapping: no access to the device happens afterwards.

use kernel::{
    device::Core,
    pci,
    pci::{
        Class,
        ClassMask,
        Vendor, //
    },
    prelude::*,
    sizes::SZ_16M,
};

use crate::{
    gpu::Gpu,
    pci::BAR0_SIZE, //
};

const _: () = assert!(BAR0_SIZE == SZ_16M);

/// The PCI driver.
pub(crate) struct NovaCore;

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
    type Data<'bound> = Gpu<'bound>;
    const ID_TABLE: pci::IdTable<Self::IdInfo> = &PCI_TABLE;

    fn probe<'bound>(
        pdev: &'bound pci::Device<Core<'_>>,
        _info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        Gpu::new(pdev)
    }

    fn unbind<'bound>(_pdev: &'bound pci::Device<Core<'_>>, this: Pin<&Self::Data<'bound>>) {
        this.quiesce();
    }
}
