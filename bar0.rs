// SPDX-License-Identifier: GPL-2.0

//! BAR0 of a bound device, and the read both the binding (`driver.rs`) and the GSP's waits
//! (`gsp/`) make of it: the identification registers.

use kernel::{
    io::Io,
    pci, //
};

use crate::{
    gpu::IdRegs,
    pci::BAR0_SIZE,
    regs,
    untrusted::Untrusted, //
};

/// BAR0 of a bound device: every register the driver uses lies within [`BAR0_SIZE`].
pub(crate) type Bar0<'bound> = pci::Bar<'bound, BAR0_SIZE>;

/// Reads the identification registers, as the device answers them.
pub(crate) fn read_id(bar: &Bar0<'_>) -> Untrusted<IdRegs> {
    Untrusted::new_untrusted(IdRegs::decode(
        bar.read(regs::NV_PMC_BOOT_0),
        bar.read(regs::NV_PMC_BOOT_42),
    ))
}
