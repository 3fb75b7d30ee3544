// SPDX-License-Identifier: GPL-2.0

//! What the interrupt registers say when GSP-RM's interrupt comes: whether the CPU's interrupt
//! tree has the GSP's vector pending (`TOP`, then the vector's leaf), and what the GSP falcon
//! routes to the host (`IRQSTAT` under the RISC-V core's `IRQMASK`). The reader (`intr.rs`,
//! `gsp/irq.rs`) reads the words; these validators decide what to do with them.
//!
//! A register that reads all ones (a device gone from the bus) confirms nothing: the vector is
//! not pending and the falcon has nothing to clear, so a handler on a device gone writes
//! nothing and says the interrupt was not its own.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// `SWGEN0`: GSP-RM posted a message.
pub(crate) const SWGEN0: u32 = 1 << 6;

/// Where a vector sits in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// Its leaf register.
    pub(crate) leaf: usize,
    /// Its bit in the leaf.
    pub(crate) bit: u32,
    /// Its subtree's bit in the top register.
    pub(crate) top: u32,
}

impl Place {
    /// The place of vector `v` (bit `v % 32` of leaf `v / 32`, subtree `v / 64`: nouveau's
    /// `nvkm_intr_xlat`, OpenRM's `dev_ctrl_defines.h`), or `None` beyond the family's `leaves`
    /// (GSP-RM's interrupt table is validated against the same bound).
    pub(crate) fn of(v: u32, leaves: u32) -> Option<Place> {
        let leaf = v / 32;
        (leaf < leaves).then_some(Place {
            leaf: leaf as usize,
            bit: 1 << (v % 32),
            top: 1 << (leaf / 2),
        })
    }
}

/// The tree's words for one vector: `TOP` and the vector's leaf.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TreeRegs {
    pub(crate) top: u32,
    pub(crate) leaf: u32,
}

/// The vector is pending: its subtree's top bit and its leaf bit are set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pending;

/// Why the vector is not pending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotPending {
    /// Its subtree's top bit or its leaf bit is clear: another source's interrupt.
    Clear,
    /// A register read all ones: the device is gone.
    Gone,
}

impl Validator<(&Untrusted<TreeRegs>, Place)> for Pending {
    type Err = NotPending;

    fn validate((regs, place): (&TreeRegs, Place)) -> Result<Pending, NotPending> {
        if regs.top == u32::MAX || regs.leaf == u32::MAX {
            return Err(NotPending::Gone);
        }
        if regs.top & place.top == 0 || regs.leaf & place.bit == 0 {
            return Err(NotPending::Clear);
        }
        Ok(Pending)
    }
}

/// The GSP falcon's interrupt words: `IRQSTAT` and the RISC-V core's `IRQMASK` (what GSP-RM
/// routes to the host; OpenRM also masks with `IRQDEST`, which nouveau does not read).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FalconIrqRegs {
    pub(crate) stat: u32,
    pub(crate) mask: u32,
}

/// What the GSP falcon routes to the host now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Routed {
    /// `SWGEN0`: a message came.
    pub(crate) swgen0: bool,
    /// Any other bit: the driver handles none (nouveau masks them for good).
    pub(crate) other: u32,
}

/// The falcon's words confirm nothing: a register read all ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FalconGone;

impl Validator<&Untrusted<FalconIrqRegs>> for Routed {
    type Err = FalconGone;

    fn validate(regs: &FalconIrqRegs) -> Result<Routed, FalconGone> {
        if regs.stat == u32::MAX || regs.mask == u32::MAX {
            return Err(FalconGone);
        }
        let routed = regs.stat & regs.mask;
        Ok(Routed {
            swgen0: routed & SWGEN0 != 0,
            other: routed & !SWGEN0,
        })
    }
}
