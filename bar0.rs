// SPDX-License-Identifier: GPL-2.0

//! BAR0 of a bound device, and the read both probe (`gpu.rs`) and the GSP's waits (`gsp/`) make
//! of it: the identification registers.

use kernel::{
    device::Device,
    io::Io,
    pci::{
        self,
        DevresBar, //
    },
    prelude::*,
    sync::Arc,
};

use crate::{
    chip::IdRegs,
    pci::BAR0_SIZE,
    regs,
    untrusted::Untrusted, //
};

/// BAR0 of a bound device: every register the driver uses lies within [`BAR0_SIZE`].
pub(crate) type Bar0<'bound> = pci::Bar<'bound, BAR0_SIZE>;

/// BAR0 for as long as the binding lasts, shared by what the GPU object owns (each part that
/// must write a register when it drops holds a clone) and reachable from paths that do not run
/// in probe or unbind (the debugfs benchmark trigger, `debugfs.rs`), where the device may be
/// unbound at any moment.
///
/// Every access is one short revocable section: taken around the register accesses alone and
/// never held across a sleep (it is an RCU read section), and refused with `ENODEV` once the
/// binding is gone.
#[derive(Clone)]
pub(crate) struct SharedBar0(Arc<DevresBar<BAR0_SIZE>>);

impl SharedBar0 {
    /// Hands the mapping over to the binding's managed resources.
    pub(crate) fn new(bar: Bar0<'_>) -> Result<Self> {
        Ok(Self(Arc::new(bar.into_devres()?, GFP_KERNEL)?))
    }

    /// Runs `f` on BAR0 while the device is still bound, or fails with `ENODEV`.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Bar0<'_>) -> R) -> Result<R> {
        self.0.try_access_with(|bar| f(bar)).ok_or(ENODEV)
    }

    /// The device the mapping belongs to, for its log lines.
    pub(crate) fn device(&self) -> &Device {
        self.0.device()
    }
}

/// Reads the identification registers, as the device answers them.
pub(crate) fn read_id(bar: &Bar0<'_>) -> Untrusted<IdRegs> {
    Untrusted::new_untrusted(IdRegs::decode(
        bar.read(regs::NV_PMC_BOOT_0),
        bar.read(regs::NV_PMC_BOOT_42),
    ))
}
