// SPDX-License-Identifier: GPL-2.0

//! The CPU's interrupt tree and the function's MSI, as the driver drives them for the one
//! vector it takes (the GSP's, from GSP-RM's interrupt table).
//!
//! Every family has the tree at BAR0+0xb80000 (nouveau `nvkm/subdev/vfn/tu102.c`, used by
//! `ga100.c` and `r535.c`; OpenRM `NV_VIRTUAL_FUNCTION_PRIV_CPU_INTR_*` in `dev_vm.h`): a vector
//! `v` is bit `v % 32` of leaf `v / 32`, each pair of leaves a subtree, one bit of the top
//! register. A vector reaches the CPU while its leaf bit, its leaf enable, its subtree's top bit
//! and top enable are all set.
//!
//! MSI: after an MSI the function sends no other until re-armed. Turing to Ada re-arm through
//! the configuration mirror, `NV_XVE_CYA_2` (nouveau `nvkm/subdev/pci/gp100.c`, OpenRM
//! `kbifRearmMSI_GM107`); from Hopper on, the top enable's clear and set re-arm it (nouveau
//! `pci/gh100.c`: "handled by top-level intr ACK"; OpenRM `intrRetriggerTopLevel_TU102`).
//! The driver does both steps as nouveau's `nvkm_intr` does: the top enable cleared and MSI
//! re-armed before the vector is serviced, the top enable set after it, so an interrupt that
//! comes meanwhile raises the next MSI.

use kernel::{
    io::{
        register::Array,
        Io, //
    },
    prelude::*, //
};

use crate::{
    bar0::Bar0,
    family::MsiRearm,
    regs,
    untrusted::Untrusted, //
};

pub(crate) mod status;

pub(crate) use status::Place;
use status::{
    Pending,
    TreeRegs, //
};

/// The tree as the driver uses it: one vector, and the family's MSI re-arm.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tree {
    place: Place,
    rearm: MsiRearm,
    /// The leaves GSP-RM uses: every one is blocked but the vector's.
    leaves: u32,
}

impl Tree {
    /// The tree of a GPU whose family re-arms MSI as `rearm` says and whose GSP-RM uses
    /// `leaves` leaves, for the vector at `place`.
    pub(crate) fn new(rearm: MsiRearm, leaves: u32, place: Place) -> Tree {
        Tree {
            place,
            rearm,
            leaves,
        }
    }

    /// Lets the vector reach the CPU, and nothing else: every leaf blocked, the vector's stale
    /// leaf bit cleared, its leaf and subtree enabled, MSI re-armed in case one is pending
    /// (nouveau `nvkm_intr_rearm`, and `nvkm_pci_init`'s re-arm).
    pub(crate) fn enable(&self, bar: &Bar0<'_>) -> Result {
        let Place { leaf, bit, top } = self.place;
        for i in 0..self.leaves as usize {
            bar.write(
                regs::NV_CPU_INTR_LEAF_EN_CLEAR::try_at(i).ok_or(EINVAL)?,
                regs::NV_CPU_INTR_LEAF_EN_CLEAR::from_raw(u32::MAX),
            );
        }
        bar.write(
            regs::NV_CPU_INTR_LEAF::try_at(leaf).ok_or(EINVAL)?,
            regs::NV_CPU_INTR_LEAF::from_raw(bit),
        );
        bar.write(
            regs::NV_CPU_INTR_LEAF_EN_SET::try_at(leaf).ok_or(EINVAL)?,
            regs::NV_CPU_INTR_LEAF_EN_SET::from_raw(bit),
        );
        bar.write_reg(regs::NV_CPU_INTR_TOP_EN_SET::from_raw(top));
        self.rearm_msi(bar);
        Ok(())
    }

    /// Stops the vector reaching the CPU: its leaf and its subtree disabled.
    pub(crate) fn disable(&self, bar: &Bar0<'_>) -> Result {
        let Place { leaf, bit, top } = self.place;
        bar.write(
            regs::NV_CPU_INTR_LEAF_EN_CLEAR::try_at(leaf).ok_or(EINVAL)?,
            regs::NV_CPU_INTR_LEAF_EN_CLEAR::from_raw(bit),
        );
        bar.write_reg(regs::NV_CPU_INTR_TOP_EN_CLEAR::from_raw(top));
        Ok(())
    }

    /// The start of a service: the subtree disabled, MSI re-armed (Turing to Ada), and
    /// whether the vector is pending ([`Pending`]), its leaf bit cleared if so (before the
    /// source is serviced, as nouveau's `nvkm_intr` clears it).
    pub(crate) fn take(&self, bar: &Bar0<'_>) -> Result<bool> {
        let Place { leaf, bit, top } = self.place;
        bar.write_reg(regs::NV_CPU_INTR_TOP_EN_CLEAR::from_raw(top));
        if self.rearm == MsiRearm::ConfigMirror {
            self.rearm_msi(bar);
        }
        let leaf_reg = || regs::NV_CPU_INTR_LEAF::try_at(leaf).ok_or(EINVAL);
        let words = Untrusted::new_untrusted(TreeRegs {
            top: bar.read(regs::NV_CPU_INTR_TOP).into_raw(),
            leaf: bar.read(leaf_reg()?).into_raw(),
        });
        if words
            .validate_ref_against::<Pending, _>(self.place)
            .is_err()
        {
            return Ok(false);
        }
        bar.write(leaf_reg()?, regs::NV_CPU_INTR_LEAF::from_raw(bit));
        Ok(true)
    }

    /// The end of a service: the subtree enabled again (from Hopper on, this re-arms MSI).
    pub(crate) fn give_back(&self, bar: &Bar0<'_>) {
        bar.write_reg(regs::NV_CPU_INTR_TOP_EN_SET::from_raw(self.place.top));
    }

    fn rearm_msi(&self, bar: &Bar0<'_>) {
        if self.rearm == MsiRearm::ConfigMirror {
            bar.write_reg(regs::NV_PCFG_XVE_CYA_2::zeroed());
        }
    }
}

#[kunit_tests(nova_core_intr)]
mod tests {
    use super::*;

    /// Vectors as nouveau's `nvkm_intr_xlat` and OpenRM's `dev_ctrl_defines.h` place them.
    #[test]
    fn vectors_map_to_leaf_bit_and_subtree() {
        assert_eq!(
            Place::of(0, 8),
            Some(Place {
                leaf: 0,
                bit: 1,
                top: 1
            })
        );
        assert_eq!(
            Place::of(192, 8),
            Some(Place {
                leaf: 6,
                bit: 1,
                top: 1 << 3
            })
        );
        assert_eq!(
            Place::of(101, 8),
            Some(Place {
                leaf: 3,
                bit: 1 << 5,
                top: 1 << 1
            })
        );
        assert_eq!(
            Place::of(255, 8),
            Some(Place {
                leaf: 7,
                bit: 1 << 31,
                top: 1 << 3
            })
        );
        assert_eq!(Place::of(256, 8), None);
        // Hopper on: GSP-RM's runlist subtrees 4 and 5, up to vector 383.
        assert_eq!(
            Place::of(383, 12),
            Some(Place {
                leaf: 11,
                bit: 1 << 31,
                top: 1 << 5
            })
        );
        assert_eq!(Place::of(384, 12), None);
    }
}
