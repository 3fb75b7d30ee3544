// SPDX-License-Identifier: GPL-2.0

//! The GPU's reach into system memory: the DMA mask, and bus mastering held by a guard (the GPU
//! reaches FWSEC's image, the booter's input, the GSP's memory and the sysmem flush page only
//! while a [`BusMaster`] has it on).

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

/// Sets the DMA mask of `spec`'s family: what the DMA memory allocated for the device from here
/// on must fit in.
pub(crate) fn set_dma_mask(pdev: &pci::Device<Core<'_>>, spec: &Spec) -> Result {
    let bits = spec.family().dma_address_bits;
    // SAFETY: Nothing allocates or maps DMA memory for this device concurrently: probe runs
    // under the device lock, and the driver allocates for the device only from its probe
    // (after this) and frees only from its unbind or when its device data drops, which cannot
    // overlap with it.
    unsafe { pdev.dma_set_mask_and_coherent(DmaMask::try_new(bits)?)? };
    Ok(())
}

/// Bus mastering on; [`BusMaster::clear`] or the guard's drop turns it off.
pub(crate) struct BusMaster<'bound>(&'bound pci::Device<Bound>);

impl<'bound> BusMaster<'bound> {
    /// Turns bus mastering on.
    pub(crate) fn enable(pdev: &'bound pci::Device<Core<'_>>) -> Self {
        pdev.set_master();
        BusMaster(pdev)
    }

    /// Turns bus mastering off: the device may no longer reach system memory (again, if it
    /// was). Through the PCI core's `pci_clear_master`, which also keeps the core's record of
    /// it (`is_busmaster`, which its power management restores on resume,
    /// `pci_pm_reenable_device`) right, unlike a write of the command register; Linux 7.3's
    /// kernel crate has `pci::Device::set_master` but not this counterpart.
    pub(crate) fn clear(&self) {
        let raw = core::ptr::from_ref(self.0)
            .cast::<bindings::pci_dev>()
            .cast_mut();
        // SAFETY: `pci::Device` is `#[repr(transparent)]` over `Opaque<bindings::pci_dev>`
        // (itself transparent over the C struct) and, by its invariant, represents a valid
        // `struct pci_dev`: `raw` points to it, as the pointer the kernel crate's own
        // `set_master` passes to `pci_set_master`. `pci_clear_master` reads and writes the
        // device's command register and the `is_busmaster` bit-field; the guard lives in the
        // driver's device data, which is used by unbind and drops either as probe fails or
        // after the device's remove, all under the device lock, which serialises it against
        // the PCI core's other writers of that word, as for `set_master`.
        unsafe { bindings::pci_clear_master(raw) };
    }
}

impl Drop for BusMaster<'_> {
    fn drop(&mut self) {
        self.clear();
    }
}
