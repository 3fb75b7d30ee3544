// SPDX-License-Identifier: GPL-2.0

//! The interrupt tree of the GPU's virtual function block (VFN, BAR0 0xb80000), which takes the
//! engines' interrupts to the CPU, and the MSI re-arm register of Turing to Ada.
//!
//! Glossary: a *vector* is an interrupt's number in the tree; *leaf* register `v / 32` holds it in
//! bit `v % 32`; a *subtree* is a pair of leaves, `TOP(0)`'s bit `v / 64`; the *level* is what the
//! tree asserts to the CPU: a `TOP` bit whose top enable is set.
//!
//! | offset | register | model |
//! |---|---|---|
//! | 0xb81000 + 4 i | CPU_INTR_LEAF(i) | pending bits; a write of 1 clears one (but see below) |
//! | 0xb81200 + 4 i | CPU_INTR_LEAF_EN_SET(i) | a write of 1 enables a bit; reads the enables |
//! | 0xb81400 + 4 i | CPU_INTR_LEAF_EN_CLEAR(i) | a write of 1 disables a bit; reads the enables |
//! | 0xb81600 | CPU_INTR_TOP(0) | read-only: bit s set while leaf 2s or 2s+1 has a pending enabled bit |
//! | 0xb81608 | CPU_INTR_TOP_EN_SET(0) | a write of 1 enables a subtree; reads the enables; Hopper on: re-arms MSI |
//! | 0xb81610 | CPU_INTR_TOP_EN_CLEAR(0) | a write of 1 disables a subtree; reads the enables |
//! | 0x088704 | NV_XVE_CYA_2 through NV_PCFG | Turing to Ada: any write re-arms MSI; reads 0 |
//!
//! `i` runs over 8 leaves up to Ada and 16 on Hopper and Blackwell (OpenRM's `dev_vm.h`:
//! `CPU_INTR_LEAF__SIZE_1` 8 in tu102, ga100 and ga102, 16 in gh100 and gb100; nouveau uses 8 on
//! every family, `nvkm/subdev/vfn/base.c`, `nvkm_vfn_new_`), so the subtrees are 4 and 8: the top
//! enables keep only their bits. Offsets: nouveau's `nvkm/subdev/vfn/tu102.c`
//! (`tu102_vfn_intr_reset`, `_allow`, `_block`, `_rearm`, `_unarm`, `_pending`), OpenRM's tu102
//! `dev_vm.h` (`NV_VIRTUAL_FUNCTION_PRIV_CPU_INTR_*`) at the base
//! `NV_VIRTUAL_FUNCTION_FULL_PHYS_OFFSET` 0xb80000; the vector's leaf, bit and subtree are OpenRM's
//! (`dev_ctrl_defines.h`, `NV_CTRL_INTR_GPU_VECTOR_TO_*`) and nouveau's (`nvkm/core/intr.c`,
//! `nvkm_intr_xlat`). That the enable registers read back the enables is the model's inference (the
//! references only write them).
//!
//! Only the GSP feeds the tree: the other engines' interrupts are not modelled. The GSP falcon's
//! output (IRQSTAT & IRQMASK, [`crate::falcon`]) lands on the GSP's stall vector as the model's
//! interrupt table gives it (`crate::gsp::controls::gsp_stall_vector`: 192, leaf 6 bit 0, subtree
//! 3, where OpenRM puts stall interrupts). The leaf bit is latched on the output's rising edge. A
//! falcon with INTR_RETRIGGER (GA100 on, nouveau `nvkm/falcon/ga100.c:24-28`, OpenRM
//! `kflcnIntrRetrigger_GA100`) latches it again when the CPU writes that register while the output
//! is high ([`Intr::retrigger`]), which is why the drivers write it after their handler; one
//! without (TU10x, nouveau `nvkm/subdev/gsp/tu102.c`, `tu102_gsp_flcn`) drives the leaf bit as a
//! level: a W1C does not clear it while the output is high, and it clears when the output falls
//! (the model's reading of why Turing needs no retrigger).
//!
//! MSI is re-armed by a write to NV_XVE_CYA_2 through the PCI config mirror on Turing to Ada
//! (nouveau `nvkm/subdev/pci/gp100.c:26-36` writes 0, OpenRM `kbifRearmMSI_GM107`: "HW only looks
//! at the offset", so any value re-arms), and by the top-level enable on Hopper and Blackwell
//! (nouveau `nvkm/subdev/pci/gh100.c:10-14`: "Handled by top-level intr ACK."; OpenRM
//! `intrRetriggerTopLevel_TU102`), where NV_PCFG is not there. The device owns the MSI's arming
//! ([`Effect::RearmMsi`]).

use crate::chipset::Chipset;

/// The VFN block's base in BAR0 (OpenRM's `NV_VIRTUAL_FUNCTION_FULL_PHYS_OFFSET`).
const VFN_BASE: u64 = 0xb8_0000;
/// CPU_INTR_LEAF(0).
const LEAF: u64 = VFN_BASE + 0x1000;
/// CPU_INTR_LEAF_EN_SET(0).
const LEAF_EN_SET: u64 = VFN_BASE + 0x1200;
/// CPU_INTR_LEAF_EN_CLEAR(0).
const LEAF_EN_CLEAR: u64 = VFN_BASE + 0x1400;
/// CPU_INTR_TOP(0).
const TOP: u64 = VFN_BASE + 0x1600;
/// CPU_INTR_TOP_EN_SET(0).
const TOP_EN_SET: u64 = VFN_BASE + 0x1608;
/// CPU_INTR_TOP_EN_CLEAR(0).
const TOP_EN_CLEAR: u64 = VFN_BASE + 0x1610;
/// NV_PCFG (0x88000) + NV_XVE_CYA_2 (0x704): the MSI re-arm of Turing to Ada.
pub const PCFG_XVE_CYA_2: u64 = 0x08_8704;

/// How a chip family's tree is laid out and how its MSI is re-armed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Turing to Ada: 8 leaves; MSI re-armed through [`PCFG_XVE_CYA_2`].
    Tu102,
    /// Hopper and Blackwell: 16 leaves; MSI re-armed by the top-level enable.
    Gh100,
}

impl Layout {
    /// The layout of `chipset`: Hopper's from the chips that boot through the FSP on.
    fn of(chipset: &Chipset) -> Layout {
        if crate::fsp::family::Family::of(chipset).is_some() {
            Layout::Gh100
        } else {
            Layout::Tu102
        }
    }

    /// How many leaf registers the tree has.
    fn leaves(self) -> usize {
        match self {
            Layout::Tu102 => 8,
            Layout::Gh100 => 16,
        }
    }
}

/// What a register write asks the device to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// MSI is re-armed: the next interrupt may be sent.
    RearmMsi,
}

/// The interrupt tree.
pub struct Intr {
    layout: Layout,
    /// CPU_INTR_LEAF: the latched bits.
    leaf: Vec<u32>,
    /// The leaf enables.
    leaf_en: Vec<u32>,
    /// The top enables (subtree bits only).
    top_en: u32,
    /// Where the GSP's output lands: (leaf, bit mask); `None` if its vector is past the leaves.
    gsp: Option<(usize, u32)>,
    /// The GSP falcon has no INTR_RETRIGGER: its leaf bit follows the output as a level.
    level_source: bool,
    /// The GSP falcon's output as last seen (for its rising edge).
    output: bool,
}

impl Intr {
    /// The tree of `chipset` with the GSP on `gsp_vector`; `retrigger`: the GSP falcon has
    /// INTR_RETRIGGER (GA100 on).
    pub fn new(chipset: &Chipset, gsp_vector: u32, retrigger: bool) -> Self {
        let layout = Layout::of(chipset);
        let leaves = layout.leaves();
        let gsp = usize::try_from(gsp_vector / 32)
            .ok()
            .filter(|&leaf| leaf < leaves)
            .map(|leaf| (leaf, 1u32 << (gsp_vector % 32)));
        Intr {
            layout,
            leaf: vec![0; leaves],
            leaf_en: vec![0; leaves],
            top_en: 0,
            gsp,
            level_source: !retrigger,
            output: false,
        }
    }

    /// Power-on and reset: nothing pending, nothing enabled.
    pub fn reset(&mut self) {
        self.leaf.fill(0);
        self.leaf_en.fill(0);
        self.top_en = 0;
        self.output = false;
    }

    /// The top enables that exist: one per subtree.
    fn subtrees(&self) -> u32 {
        (1u32 << (self.leaf.len() / 2)) - 1
    }

    /// The leaf index of a register of the leaf array starting at `first`, if `offset` is one.
    fn index(&self, first: u64, offset: u64) -> Option<usize> {
        let rel = offset.checked_sub(first)?;
        let i = usize::try_from(rel / 4).ok()?;
        (rel % 4 == 0 && i < self.leaf.len()).then_some(i)
    }

    /// CPU_INTR_TOP(0): the subtrees with a pending enabled bit.
    pub fn top(&self) -> u32 {
        let pending: Vec<bool> = self
            .leaf
            .iter()
            .zip(&self.leaf_en)
            .map(|(l, e)| l & e != 0)
            .collect();
        pending
            .chunks(2)
            .enumerate()
            .filter(|(_, pair)| pair.iter().any(|&p| p))
            .fold(0, |top, (s, _)| top | (1 << s))
    }

    /// What the tree asserts to the CPU: a pending subtree whose top enable is set.
    pub fn level(&self) -> bool {
        self.top() & self.top_en != 0
    }

    /// A register read, if `offset` is one of the tree's (or the MSI re-arm's).
    pub fn read(&self, offset: u64) -> Option<u32> {
        if let Some(i) = self.index(LEAF, offset) {
            return Some(self.leaf[i]);
        }
        if let Some(i) = self
            .index(LEAF_EN_SET, offset)
            .or_else(|| self.index(LEAF_EN_CLEAR, offset))
        {
            return Some(self.leaf_en[i]);
        }
        match offset {
            TOP => Some(self.top()),
            TOP_EN_SET | TOP_EN_CLEAR => Some(self.top_en),
            PCFG_XVE_CYA_2 if self.layout == Layout::Tu102 => Some(0),
            _ => None,
        }
    }

    /// A register write: `None` when `offset` is not the tree's, otherwise what it asks for.
    pub fn write(&mut self, offset: u64, value: u32) -> Option<Option<Effect>> {
        if let Some(i) = self.index(LEAF, offset) {
            self.leaf[i] &= !value;
            self.hold_level();
            return Some(None);
        }
        if let Some(i) = self.index(LEAF_EN_SET, offset) {
            self.leaf_en[i] |= value;
            return Some(None);
        }
        if let Some(i) = self.index(LEAF_EN_CLEAR, offset) {
            self.leaf_en[i] &= !value;
            return Some(None);
        }
        match offset {
            // Read-only.
            TOP => Some(None),
            TOP_EN_SET => {
                self.top_en |= value & self.subtrees();
                Some((self.layout == Layout::Gh100).then_some(Effect::RearmMsi))
            }
            TOP_EN_CLEAR => {
                self.top_en &= !value;
                Some(None)
            }
            PCFG_XVE_CYA_2 if self.layout == Layout::Tu102 => Some(Some(Effect::RearmMsi)),
            _ => None,
        }
    }

    /// Latches the GSP's bit.
    fn latch(&mut self) {
        if let Some((leaf, bit)) = self.gsp {
            self.leaf[leaf] |= bit;
        }
    }

    /// A falcon without INTR_RETRIGGER keeps its bit set while its output is high.
    fn hold_level(&mut self) {
        if self.level_source && self.output {
            self.latch();
        }
    }

    /// The GSP falcon's output is `high` now: its bit is latched on the rising edge; a falcon
    /// without INTR_RETRIGGER drives it as a level, cleared when the output falls.
    pub fn set_gsp_output(&mut self, high: bool) {
        if high && !self.output {
            self.latch();
        }
        if self.level_source && !high {
            if let Some((leaf, bit)) = self.gsp {
                self.leaf[leaf] &= !bit;
            }
        }
        self.output = high;
        self.hold_level();
    }

    /// INTR_RETRIGGER(0) of the GSP falcon written: its bit is latched again if its output is
    /// high.
    pub fn retrigger(&mut self) {
        if self.output {
            self.latch();
        }
    }
}

#[cfg(test)]
mod tests;
