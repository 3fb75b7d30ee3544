// SPDX-License-Identifier: GPL-2.0

//! What differs between the three families that boot through the FSP (Hopper, GB10x, GB20x),
//! in one place: the FSP boot status register, the COT version, the FMC's key and signature
//! sizes, the FB layout sizes the WPR meta and the COT carry, GSP-RM's signature section and
//! the sysmem flush registers.

use crate::chipset::Chipset;

/// `NV_THERM_I2CS_SCRATCH` of GH100 and GB10x: the FSP boot status.
pub const NV_THERM_I2CS_SCRATCH_GH100: u64 = 0x0002_00bc;
/// `NV_THERM_I2CS_SCRATCH` of GB20x.
pub const NV_THERM_I2CS_SCRATCH_GB202: u64 = 0x00ad_00bc;

/// `NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR_LO`/`_HI` (GH100).
pub const NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR: (u64, u64) = (0x0010_0a34, 0x0010_0a38);
/// The HSHUB0 register window of GB10x.
const HSHUB0_BASE: u64 = 0x0087_0000;
/// `NV_PFB_HSHUB_PCIE_FLUSH_SYSMEM_ADDR_LO`/`_HI` (GB10x, primary pair).
pub const NV_PFB_HSHUB_PCIE_FLUSH_SYSMEM_ADDR: (u64, u64) =
    (HSHUB0_BASE + 0xe50, HSHUB0_BASE + 0xe54);
/// `NV_PFB_HSHUB_EG_PCIE_FLUSH_SYSMEM_ADDR_LO`/`_HI` (GB10x, egress pair).
pub const NV_PFB_HSHUB_EG_PCIE_FLUSH_SYSMEM_ADDR: (u64, u64) =
    (HSHUB0_BASE + 0x6c0, HSHUB0_BASE + 0x6c4);
/// `NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR_LO`/`_HI` (GB20x).
pub const NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR: (u64, u64) = (0x008a_1d58, 0x008a_1d5c);

const MIB: u64 = 1 << 20;

/// A family that boots GSP-RM through the FSP's chain of trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// GH100.
    Gh100,
    /// GB100, GB102.
    Gb10x,
    /// GB202 to GB207.
    Gb20x,
}

impl Family {
    /// The family of `chipset`, `None` for chips that boot through the booter.
    pub fn of(chipset: &Chipset) -> Option<Family> {
        match chipset.architecture() {
            0x18 => Some(Family::Gh100),
            0x1a => Some(Family::Gb10x),
            0x1b => Some(Family::Gb20x),
            _ => None,
        }
    }

    /// The family's name in the log.
    pub fn name(self) -> &'static str {
        match self {
            Family::Gh100 => "GH100",
            Family::Gb10x => "GB10x",
            Family::Gb20x => "GB20x",
        }
    }

    /// Where the FSP says it booted (`NV_THERM_I2CS_SCRATCH`).
    pub fn boot_status_register(self) -> u64 {
        match self {
            Family::Gh100 | Family::Gb10x => NV_THERM_I2CS_SCRATCH_GH100,
            Family::Gb20x => NV_THERM_I2CS_SCRATCH_GB202,
        }
    }

    /// The COT payload's `version`.
    pub fn cot_version(self) -> u16 {
        match self {
            Family::Gh100 => 1,
            Family::Gb10x | Family::Gb20x => 2,
        }
    }

    /// The exact sizes of the FMC's `publickey` and `signature` sections.
    pub fn key_and_signature_sizes(self) -> (usize, usize) {
        match self {
            Family::Gh100 => (384, 384),
            Family::Gb10x | Family::Gb20x => (97, 96),
        }
    }

    /// The PMU's reservation at the end of the FB (`pmuReservedSize`): r570's
    /// align_up(8 MiB + 16 MiB + 4 KiB, 128 KiB) on Blackwell.
    pub fn pmu_reserved_size(self) -> u64 {
        match self {
            Family::Gh100 => 0,
            Family::Gb10x | Family::Gb20x => 0x182_0000,
        }
    }

    /// The non-WPR heap (`nonWprHeapSize`).
    pub fn non_wpr_heap_size(self) -> u64 {
        match self {
            Family::Gh100 | Family::Gb10x => 2 * MIB,
            Family::Gb20x => 2 * MIB + (128 << 10),
        }
    }

    /// The COT's `frtsVidmemOffset`, measured back from the end of the FB: the reservation
    /// at its end, plus the PMU's aligned up to 2 MiB where there is one.
    pub fn frts_vidmem_offset(self) -> u64 {
        let reserved = match self {
            Family::Gh100 => 2 * MIB,
            Family::Gb10x | Family::Gb20x => 2 * MIB + (128 << 10),
        };
        match self.pmu_reserved_size() {
            0 => reserved,
            pmu => (reserved + pmu).next_multiple_of(2 * MIB),
        }
    }

    /// GSP-RM's signature section for the family in `gsp-<version>.bin`.
    pub fn signature_section(self) -> &'static str {
        match self {
            Family::Gh100 => ".fwsignature_gh100",
            Family::Gb10x => ".fwsignature_gb10x",
            Family::Gb20x => ".fwsignature_gb20x",
        }
    }

    /// The sysmem flush register pairs (LO, HI) the driver writes the page's address to.
    pub fn flush_registers(self) -> &'static [(u64, u64)] {
        match self {
            Family::Gh100 => &[NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR],
            Family::Gb10x => &[
                NV_PFB_HSHUB_PCIE_FLUSH_SYSMEM_ADDR,
                NV_PFB_HSHUB_EG_PCIE_FLUSH_SYSMEM_ADDR,
            ],
            Family::Gb20x => &[NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset::find;

    #[test]
    fn families_of_the_fsp_chips_and_their_layout_sizes() {
        let of = |n: &str| Family::of(find(n).unwrap());
        assert_eq!(of("gh100"), Some(Family::Gh100));
        assert_eq!(of("gb102"), Some(Family::Gb10x));
        assert_eq!(of("gb207"), Some(Family::Gb20x));
        assert_eq!(of("ad102"), None);
        assert_eq!(Family::Gh100.frts_vidmem_offset(), 0x20_0000);
        assert_eq!(Family::Gb10x.frts_vidmem_offset(), 0x1c0_0000);
        assert_eq!(Family::Gb20x.frts_vidmem_offset(), 0x1c0_0000);
        assert_eq!(Family::Gb20x.non_wpr_heap_size(), 0x22_0000);
    }
}
