// SPDX-License-Identifier: GPL-2.0

//! Bus mastering, held by a guard: the GPU reaches system memory (FWSEC's image, the booter's
//! input, the GSP's memory, the sysmem flush page) only while a [`BusMaster`] lives.

use kernel::{
    bindings,
    device::{
        Bound,
        Core, //
    },
    dma::{
        Device as _,
        DmaMask, //
    },
    pci,
    prelude::*,
};

use crate::chip::Spec;

/// Bus mastering on, with the DMA mask of the chip's family; dropping the guard turns it off.
pub(crate) struct BusMaster<'bound>(&'bound pci::Device<Bound>);

impl<'bound> BusMaster<'bound> {
    /// Sets the DMA mask of `spec`'s family and turns bus mastering on.
    pub(crate) fn enable(pdev: &'bound pci::Device<Core<'_>>, spec: &Spec) -> Result<Self> {
        let bits = spec.architecture().dma_address_bits();
        // SAFETY: Nothing allocates or maps DMA memory for this device concurrently: probe runs
        // under the device lock, and the driver allocates for the device only from its probe
        // (after this) and frees only when its device data drops, which cannot overlap.
        unsafe { pdev.dma_set_mask_and_coherent(DmaMask::try_new(bits)?)? };
        pdev.set_master();
        Ok(BusMaster(pdev))
    }
}

impl Drop for BusMaster<'_> {
    /// Turns bus mastering off: the device may no longer reach system memory. Through the PCI
    /// core's `pci_clear_master`, which keeps its record of it (`is_busmaster`, which the PCI
    /// core's power management restores on resume, `pci_pm_reenable_device`) true, unlike a
    /// write of the command register; Linux 7.3's kernel crate has `pci::Device::set_master`
    /// but not this counterpart.
    fn drop(&mut self) {
        let raw = core::ptr::from_ref(self.0)
            .cast::<bindings::pci_dev>()
            .cast_mut();
        // SAFETY: `pci::Device` is `#[repr(transparent)]` over `Opaque<bindings::pci_dev>`
        // (itself transparent over the C struct) and, by its invariant, represents a valid
        // `struct pci_dev`: `raw` points to it, as the pointer the kernel crate's own
        // `set_master` passes to `pci_set_master`. `pci_clear_master` reads and writes the
        // device's command register and the `is_busmaster` bit-field; the guard lives in the
        // driver's device data, which drops either as probe fails or after the device's remove,
        // both under the device lock, which serialises it against the PCI core's other writers
        // of that word, as for `set_master`.
        unsafe { bindings::pci_clear_master(raw) };
    }
}
