// SPDX-License-Identifier: GPL-2.0

//! The FB registers a boot of Hopper or Blackwell touches (the booter chips' are
//! [`crate::fb`]'s):
//!
//! - the video memory size, `NV_PGC6_AON_SECURE_SCRATCH_GROUP_42` (0x1183a4): `--fb-size` in
//!   MiB;
//! - the sysmem flush page, written as a raw address split in two: LO (bits 31:0, 7:0
//!   ignored by the hardware) and HI (bits 51:32, in bits 19:0), HI first, then LO, whose
//!   write triggers the flush: GH100's FBHUB pair (0x100a34/0x100a38), GB10x's two HSHUB0
//!   pairs (0x870e50/0x870e54, then the egress pair 0x8706c0/0x8706c4, both with the same
//!   address) and GB20x's FBHUB0 pair (0x8a1d58/0x8a1d5c). They read back what was written
//!   (HI's 20 bits).

use super::family::Family;

/// `NV_PGC6_AON_SECURE_SCRATCH_GROUP_42`: the usable video memory in MiB.
pub const NV_PGC6_AON_SECURE_SCRATCH_GROUP_42: u64 = 0x0011_83a4;

/// HI's address bits (51:32).
const HI_MASK: u32 = 0xf_ffff;

/// The FB registers of one Hopper or Blackwell GPU.
pub struct Hub {
    family: Family,
    size_mib: u32,
    /// LO and HI of each of the family's flush pairs.
    flush: Vec<(u32, u32)>,
}

impl Hub {
    /// The registers of `family` with `size` bytes of video memory (whole MiB count).
    pub fn new(family: Family, size: u64) -> Hub {
        Hub {
            family,
            size_mib: u32::try_from(size >> 20).unwrap_or(u32::MAX),
            flush: vec![(0, 0); family.flush_registers().len()],
        }
    }

    /// Video memory size in bytes.
    pub fn size(&self) -> u64 {
        u64::from(self.size_mib) << 20
    }

    /// Power-on values: no flush page.
    pub fn reset(&mut self) {
        self.flush.iter_mut().for_each(|p| *p = (0, 0));
    }

    /// The pair and half (`false`: LO) `offset` is, if it is a flush register.
    fn flush_register(&self, offset: u64) -> Option<(usize, bool)> {
        self.family
            .flush_registers()
            .iter()
            .enumerate()
            .find_map(|(i, &(lo, hi))| match offset {
                o if o == lo => Some((i, false)),
                o if o == hi => Some((i, true)),
                _ => None,
            })
    }

    /// The value of one of its registers, or `None` for other offsets.
    pub fn read(&self, offset: u64) -> Option<u32> {
        if offset == NV_PGC6_AON_SECURE_SCRATCH_GROUP_42 {
            return Some(self.size_mib);
        }
        let (pair, hi) = self.flush_register(offset)?;
        let (l, h) = self.flush[pair];
        Some(if hi { h } else { l })
    }

    /// A CPU write to one of its registers, or `None` for other offsets (the size register is
    /// read-only): a LO write logs the page the pair now holds.
    pub fn write(&mut self, offset: u64, value: u32) -> Option<Option<String>> {
        if offset == NV_PGC6_AON_SECURE_SCRATCH_GROUP_42 {
            return Some(None);
        }
        let (pair, hi) = self.flush_register(offset)?;
        if hi {
            self.flush[pair].1 = value & HI_MASK;
            return Some(None);
        }
        self.flush[pair].0 = value;
        let (lo, _) = self.family.flush_registers()[pair];
        Some(Some(match self.pair_page(pair) {
            Some(addr) => format!("FB: sysmem flush page registered at {addr:#x} ({lo:#x})"),
            None => format!("FB: sysmem flush page unregistered ({lo:#x})"),
        }))
    }

    /// The address pair `pair` holds (bits 7:0 ignored), if not 0.
    fn pair_page(&self, pair: usize) -> Option<u64> {
        let (lo, hi) = self.flush[pair];
        let addr = (u64::from(hi) << 32) | u64::from(lo & !0xff);
        (addr != 0).then_some(addr)
    }

    /// The registered flush page: every pair of the family holds it.
    pub fn flush_page(&self) -> Option<u64> {
        let first = self.pair_page(0)?;
        (1..self.flush.len())
            .all(|p| self.pair_page(p) == Some(first))
            .then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fsp::family::*;

    #[test]
    fn size_register_says_the_fb_size_in_mib() {
        let hub = Hub::new(Family::Gh100, 80 << 30);
        assert_eq!(
            hub.read(NV_PGC6_AON_SECURE_SCRATCH_GROUP_42),
            Some(80 << 10)
        );
        assert_eq!(hub.size(), 80 << 30);
    }

    #[test]
    fn flush_pairs_keep_the_raw_address_and_every_pair_must_hold_it() {
        let mut gh = Hub::new(Family::Gh100, 1 << 30);
        let (lo, hi) = NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR;
        assert_eq!(gh.write(hi, 0xfff0_0012), Some(None));
        let line = gh.write(lo, 0x3456_7800).flatten().unwrap();
        assert_eq!(
            line,
            "FB: sysmem flush page registered at 0x1234567800 (0x100a34)"
        );
        assert_eq!(gh.read(hi), Some(0x12));
        assert_eq!(gh.read(lo), Some(0x3456_7800));
        assert_eq!(gh.flush_page(), Some(0x12_3456_7800));
        gh.reset();
        assert_eq!(gh.flush_page(), None);

        let mut gb = Hub::new(Family::Gb10x, 1 << 30);
        let (plo, phi) = NV_PFB_HSHUB_PCIE_FLUSH_SYSMEM_ADDR;
        let (elo, ehi) = NV_PFB_HSHUB_EG_PCIE_FLUSH_SYSMEM_ADDR;
        gb.write(phi, 1);
        gb.write(plo, 0x1000);
        assert_eq!(gb.flush_page(), None, "the egress pair is not set yet");
        gb.write(ehi, 1);
        gb.write(elo, 0x10ff);
        assert_eq!(gb.flush_page(), Some(0x1_0000_1000), "bits 7:0 ignored");

        let mut gb20 = Hub::new(Family::Gb20x, 1 << 30);
        assert_eq!(gb20.read(NV_PFB_FBHUB_PCIE_FLUSH_SYSMEM_ADDR.0), None);
        gb20.write(NV_PFB_FBHUB0_PCIE_FLUSH_SYSMEM_ADDR.0, 0x2000);
        assert_eq!(gb20.flush_page(), Some(0x2000));
    }
}
