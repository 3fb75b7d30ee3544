// SPDX-License-Identifier: GPL-2.0

//! The framebuffer unit's registers, as a GSP boot of Turing to Ada reads and writes them:
//!
//! - the usable FB size: `NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE` (0x100ce0; Turing and GA100,
//!   magnitude in bits 9:4 and scale in 3:0, `mag << scale` MiB) or `NV_USABLE_FB_SIZE_IN_MB`
//!   (always-on scratch 0x1183a4; GA102 and later, MiB);
//! - the display fuse, `NV_FUSE_STATUS_OPT_DISPLAY` (0x21c04 on Turing, 0x820c04 from GA100
//!   on): bit 0 set on GA100, which has no display engine; the copy engines' fuse just below
//!   it (0x21c00, 0x820c00; nouveau's `gm107_devinit_disable` reads it on Turing): 0, none
//!   fused off;
//! - `NV_PDISP_VGA_WORKSPACE_BASE` (0x625f04): the workspace in the last MiB, valid;
//! - the sysmem flush page, `NV_PFB_NISO_FLUSH_SYSMEM_ADDR` (0x100c10, bits 39:8) and `_HI`
//!   (0x100c40, bits 63:40, from GA100 on), kept as written;
//! - WPR2, `NV_PFB_PRI_MMU_WPR2_ADDR_LO`/`_HI` (0x1fa824/0x1fa828, bits 31:4 an address >> 12:
//!   the first byte, and the start of the last 128 KiB granule): read-only to the CPU; only
//!   FWSEC-FRTS (the falcon model) sets the region.
//!
//! - GA100's MMU lock, `NV_PFB_PRI_MMU_LOCK_CFG_PRIV_LEVEL_MASK` (0x1fa7c8, bit 0: the CPU may
//!   read the range; set) and `_ADDR_LO`/`_HI` (0x1fa82c/0x1fa830, bits 31:4 a 4 KiB page
//!   number: the first and the last page locked): with `--fb-mmu-lock BYTES`, the VBIOS locked
//!   video memory from BYTES to its end (on an A100, for the row remapper: nouveau's
//!   `ga100_gsp_mmu_lock_lo`), and the layout from FRTS down must stay below it; without, the
//!   range reads reversed, LO all ones and HI 0 (OpenRM's invalid range), which is no lock.
//!   nouveau reads them on GA100 only, and so does the model answer them.
//!
//! The FB size is `--fb-size` (default 24 GiB, in whole MiB). `--fb-fault` lies: `no-memory` (the size
//! register reads 0), `huge` (it says 2 TiB), `vga-past-end` (the workspace base lies past the
//! end of video memory), `wpr2-preset` (WPR2 is set from power-on, as after a driver that left
//! it behind).

use std::ops::Range;

use crate::chipset::Chipset;
use crate::lie::lies;

pub const NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE: u64 = 0x100ce0;
pub const NV_USABLE_FB_SIZE_IN_MB: u64 = 0x1183a4;
pub const NV_FUSE_STATUS_OPT_CE_TU102: u64 = 0x021c00;
pub const NV_FUSE_STATUS_OPT_CE_GA100: u64 = 0x820c00;
pub const NV_FUSE_STATUS_OPT_DISPLAY_TU102: u64 = 0x021c04;
pub const NV_FUSE_STATUS_OPT_DISPLAY_GA100: u64 = 0x820c04;
pub const NV_PDISP_VGA_WORKSPACE_BASE: u64 = 0x625f04;
pub const NV_PFB_NISO_FLUSH_SYSMEM_ADDR: u64 = 0x100c10;
pub const NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI: u64 = 0x100c40;
pub const NV_PFB_PRI_MMU_WPR2_ADDR_LO: u64 = 0x1fa824;
pub const NV_PFB_PRI_MMU_WPR2_ADDR_HI: u64 = 0x1fa828;
pub const NV_PFB_PRI_MMU_LOCK_CFG_PRIV_LEVEL_MASK: u64 = 0x1fa7c8;
pub const NV_PFB_PRI_MMU_LOCK_ADDR_LO: u64 = 0x1fa82c;
pub const NV_PFB_PRI_MMU_LOCK_ADDR_HI: u64 = 0x1fa830;

/// WPR2's granule: its upper register holds the start of the last one.
const WPR2_GRANULE: u64 = 128 << 10;

/// What `--fb-size` accepts, in bytes: at least what a GSP boot's regions need, at most 1 TiB.
pub const FB_SIZE_RANGE: Range<u64> = 256 << 20..(1 << 40) + 1;

lies! {
    /// How the FB registers lie.
    pub enum FbLie ("FB") {
        NoMemory = "no-memory" => "the FB size register reads 0",
        Huge = "huge" => "the FB size register says 2 TiB",
        VgaPastEnd = "vga-past-end" => "the VGA workspace base lies past the end of video memory",
        Wpr2Preset = "wpr2-preset" => "WPR2 is set from power-on",
    }
}

/// The register layout of a chip family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Turing: size in LOCAL_MEMORY_RANGE, fuse at 0x21c04, no flush high half.
    Tu102,
    /// GA100: as Turing for the size, the later fuse, no display engine.
    Ga100,
    /// GA102 to Ada: size in the scratch register.
    Ga102,
}

impl Family {
    /// The family of a chip that boots through FWSEC; `None` from Hopper on.
    pub fn of(chipset: &Chipset) -> Option<Family> {
        match (chipset.architecture(), chipset.name) {
            (0x16, _) => Some(Family::Tu102),
            (0x17, "ga100") => Some(Family::Ga100),
            (0x17 | 0x19, _) => Some(Family::Ga102),
            _ => None,
        }
    }
}

/// The region WPR2 covers when the register lie presets it.
const PRESET_WPR2: Range<u64> = 0x1_0000_0000..0x1_0010_0000;

/// `mib` as LOCAL_MEMORY_RANGE's magnitude (6 bits) and scale (4 bits): the largest
/// `mag << scale` not above it.
fn encode_mib(mib: u32) -> (u32, u32) {
    let scale = mib.ilog2().saturating_sub(5).min(15);
    ((mib >> scale).min(0x3f), scale)
}

/// The FB unit of one emulated GPU.
pub struct Fb {
    family: Family,
    size_mib: u32,
    lie: Option<FbLie>,
    flush_lo: u32,
    flush_hi: u32,
    wpr2: Option<Range<u64>>,
    /// GA100: where the VBIOS's MMU lock starts (`--fb-mmu-lock`); it ends at the end.
    mmu_lock: Option<u64>,
}

impl Fb {
    /// The unit of `chipset` with `size` bytes of video memory (whole MiB count), or `None`
    /// for chips that do not boot through FWSEC (their FB is not modelled).
    pub fn new(chipset: &Chipset, size: u64, lie: Option<FbLie>) -> Option<Fb> {
        let mut fb = Fb {
            family: Family::of(chipset)?,
            size_mib: u32::try_from(size >> 20).unwrap_or(u32::MAX),
            lie,
            flush_lo: 0,
            flush_hi: 0,
            wpr2: None,
            mmu_lock: None,
        };
        fb.reset();
        Some(fb)
    }

    /// Locks video memory from `start` to its end (GA100 only: `--fb-mmu-lock`); the error
    /// says why it cannot be.
    pub fn set_mmu_lock(&mut self, start: u64) -> Result<(), String> {
        if self.family != Family::Ga100 {
            return Err("--fb-mmu-lock: only GA100 has the MMU lock".into());
        }
        // Page 0 is what the references read as no lock.
        if start % 4096 != 0 || start == 0 || start >= self.size() {
            return Err(format!(
                "--fb-mmu-lock: {start:#x} is not a 4 KiB page above page 0 inside video memory \
                 ({:#x} bytes)",
                self.size()
            ));
        }
        self.mmu_lock = Some(start);
        Ok(())
    }

    /// Video memory size in bytes: `--fb-size`, as the family's register can say it (Turing
    /// and GA100 round down to `mag << scale` MiB).
    pub fn size(&self) -> u64 {
        let mib = match self.family {
            Family::Ga102 => self.size_mib,
            Family::Tu102 | Family::Ga100 => {
                let (mag, scale) = encode_mib(self.size_mib);
                mag << scale
            }
        };
        u64::from(mib) << 20
    }

    /// Power-on values: no flush page, no WPR2 (unless the lie presets it).
    pub fn reset(&mut self) {
        self.flush_lo = 0;
        self.flush_hi = 0;
        self.wpr2 = None;
        if self.lie == Some(FbLie::Wpr2Preset) {
            self.set_wpr2(PRESET_WPR2);
        }
    }

    /// Whether `offset` is one of its registers.
    pub fn contains(&self, offset: u64) -> bool {
        self.read(offset).is_some()
    }

    /// The size register's value: `mag << scale` MiB on Turing and GA100, MiB from GA102 on.
    fn size_register(&self) -> u32 {
        let tu = |(mag, scale): (u32, u32)| (mag << 4) | scale;
        match (self.lie, self.family) {
            (Some(FbLie::NoMemory), _) => 0,
            // 2 TiB, or as close as the register gets (63 << 15 MiB).
            (Some(FbLie::Huge), Family::Ga102) => 2 << 20,
            (Some(FbLie::Huge), _) => tu((0x3f, 0xf)),
            (_, Family::Ga102) => self.size_mib,
            (_, _) => tu(encode_mib(self.size_mib)),
        }
    }

    /// The value of one of its registers, or `None` for other offsets.
    pub fn read(&self, offset: u64) -> Option<u32> {
        let tu = matches!(self.family, Family::Tu102 | Family::Ga100);
        Some(match offset {
            NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE if tu => self.size_register(),
            NV_USABLE_FB_SIZE_IN_MB if !tu => self.size_register(),
            NV_FUSE_STATUS_OPT_DISPLAY_TU102 | NV_FUSE_STATUS_OPT_CE_TU102
                if self.family == Family::Tu102 =>
            {
                0
            }
            NV_FUSE_STATUS_OPT_CE_GA100 if self.family != Family::Tu102 => 0,
            NV_FUSE_STATUS_OPT_DISPLAY_GA100 if self.family != Family::Tu102 => {
                u32::from(self.family == Family::Ga100)
            }
            // No display engine on GA100: its registers answer a PRI error pattern (not a
            // valid workspace), which a driver that read them anyway would see.
            NV_PDISP_VGA_WORKSPACE_BASE if self.family == Family::Ga100 => 0xbadf_5040,
            NV_PDISP_VGA_WORKSPACE_BASE => {
                let base = if self.lie == Some(FbLie::VgaPastEnd) {
                    self.size() + (16 << 20)
                } else {
                    self.size() - (1 << 20)
                };
                (((base >> 16) as u32) << 8) | (1 << 3)
            }
            NV_PFB_PRI_MMU_LOCK_CFG_PRIV_LEVEL_MASK if self.family == Family::Ga100 => 1,
            NV_PFB_PRI_MMU_LOCK_ADDR_LO if self.family == Family::Ga100 => self
                .mmu_lock
                .map_or(u32::MAX, |start| ((start >> 12) << 4) as u32),
            NV_PFB_PRI_MMU_LOCK_ADDR_HI if self.family == Family::Ga100 => self
                .mmu_lock
                .map_or(0, |_| (((self.size() - 4096) >> 12) << 4) as u32),
            NV_PFB_NISO_FLUSH_SYSMEM_ADDR => self.flush_lo,
            NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI if self.family != Family::Tu102 => self.flush_hi,
            NV_PFB_PRI_MMU_WPR2_ADDR_LO => self.wpr2().map_or(0, |r| ((r.start >> 12) << 4) as u32),
            // The start of the region's last 128 KiB granule, as silicon keeps it.
            NV_PFB_PRI_MMU_WPR2_ADDR_HI => self
                .wpr2()
                .map_or(0, |r| (((r.end - WPR2_GRANULE) >> 12) << 4) as u32),
            _ => return None,
        })
    }

    /// A CPU write to one of its registers: the flush page halves keep what is written (24
    /// bits of the high half); the others are read-only. Returns a log line when the low half
    /// (written last) registers or unregisters a page.
    pub fn write(&mut self, offset: u64, value: u32) -> Option<String> {
        match offset {
            NV_PFB_NISO_FLUSH_SYSMEM_ADDR => {
                self.flush_lo = value;
                Some(match self.flush_page() {
                    Some(addr) => format!("FB: sysmem flush page registered at {addr:#x}"),
                    None => "FB: sysmem flush page unregistered".to_string(),
                })
            }
            NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI if self.family != Family::Tu102 => {
                self.flush_hi = value & 0xff_ffff;
                None
            }
            _ => None,
        }
    }

    /// The registered flush page's address, if one is registered.
    pub fn flush_page(&self) -> Option<u64> {
        let addr = (u64::from(self.flush_hi) << 40) | (u64::from(self.flush_lo) << 8);
        (addr != 0).then_some(addr)
    }

    /// Where FWSEC-FRTS must put the FRTS region: 1 MiB ending at the VGA workspace (as its
    /// register says it) aligned down to 128 KiB; on GA100, which runs no FWSEC-FRTS, an empty
    /// region there.
    pub fn frts_region(&self) -> Range<u64> {
        // GA100's display is fused off: no register, the workspace is the last MiB; what its
        // MMU lock fences off is not used either.
        let vga = match self.family {
            Family::Ga100 => (self.size() - (1 << 20)).min(self.mmu_lock.unwrap_or(u64::MAX)),
            _ => u64::from(self.read(NV_PDISP_VGA_WORKSPACE_BASE).unwrap_or(0) >> 8) << 16,
        };
        let end = vga & !((128 << 10) - 1);
        let size = if self.family == Family::Ga100 {
            0
        } else {
            1 << 20
        };
        end.saturating_sub(size)..end
    }

    /// WPR2 as the registers say.
    pub fn wpr2(&self) -> Option<Range<u64>> {
        self.wpr2.clone()
    }

    /// Clears WPR2 (what booter_unload does on silicon).
    pub fn clear_wpr2(&mut self) {
        self.wpr2 = None;
    }

    /// Sets WPR2 (FWSEC-FRTS did).
    pub fn set_wpr2(&mut self, range: Range<u64>) {
        self.wpr2 = Some(range);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset;

    fn fb(name: &str, mib: u32, lie: Option<FbLie>) -> Fb {
        Fb::new(chipset::find(name).unwrap(), u64::from(mib) << 20, lie).unwrap()
    }

    /// The size register encodes the size exactly, on both layouts.
    #[test]
    fn size_register_encodes_the_size() {
        for mib in [256, 4096, 6144, 8192, 11264, 24576, 49152, 81920] {
            let v = fb("tu102", mib, None)
                .read(NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE)
                .unwrap();
            assert_eq!(((v >> 4) & 0x3f) << (v & 0xf), mib, "{mib} MiB: {v:#x}");
            assert_eq!(
                fb("ga102", mib, None).read(NV_USABLE_FB_SIZE_IN_MB),
                Some(mib)
            );
        }
        // Each family has only its own size register.
        assert_eq!(
            fb("ga102", 8192, None).read(NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE),
            None
        );
        assert_eq!(fb("tu102", 8192, None).read(NV_USABLE_FB_SIZE_IN_MB), None);
        assert!(Fb::new(chipset::find("gh100").unwrap(), 8 << 30, None).is_none());
    }

    /// GA100's MMU lock: readable, and a reversed range (no lock) by default; `--fb-mmu-lock`
    /// gives its first and last page as nouveau decodes them, and FRTS (empty on GA100) moves
    /// below it. Other families have no such registers, and no lock.
    #[test]
    fn ga100_mmu_lock() {
        let mut a100 = fb("ga100", 40 << 10, None);
        let top = (40u64 << 30) - (1 << 20);
        assert_eq!(a100.frts_region(), top..top);
        let regs = |f: &Fb| {
            [
                NV_PFB_PRI_MMU_LOCK_CFG_PRIV_LEVEL_MASK,
                NV_PFB_PRI_MMU_LOCK_ADDR_LO,
                NV_PFB_PRI_MMU_LOCK_ADDR_HI,
            ]
            .map(|r| f.read(r))
        };
        assert_eq!(regs(&a100), [Some(1), Some(u32::MAX), Some(0)]);
        let start = (40u64 << 30) - (6 << 20) - (64 << 10);
        assert_eq!(a100.set_mmu_lock(start), Ok(()));
        let page = |r: u32| u64::from(r >> 4) << 12;
        let [cfg, lo, hi] = regs(&a100).map(Option::unwrap);
        assert_eq!((cfg, page(lo), page(hi)), (1, start, (40 << 30) - 4096));
        let below = (40u64 << 30) - (6 << 20) - (128 << 10);
        assert_eq!(a100.frts_region(), below..below);
        assert!(a100.set_mmu_lock(40 << 30).is_err());
        assert!(a100.set_mmu_lock(start + 1).is_err());
        let mut ga102 = fb("ga102", 8192, None);
        assert_eq!(regs(&ga102), [None; 3]);
        assert!(ga102.set_mmu_lock(4 << 30).is_err());
    }

    #[test]
    fn display_fuse_and_workspace() {
        assert_eq!(
            fb("tu102", 8192, None).read(NV_FUSE_STATUS_OPT_DISPLAY_TU102),
            Some(0)
        );
        assert_eq!(
            fb("ga100", 8192, None).read(NV_FUSE_STATUS_OPT_DISPLAY_GA100),
            Some(1)
        );
        assert_eq!(
            fb("ad102", 8192, None).read(NV_FUSE_STATUS_OPT_DISPLAY_GA100),
            Some(0)
        );
        let ws = fb("ga102", 8192, None)
            .read(NV_PDISP_VGA_WORKSPACE_BASE)
            .unwrap();
        assert_eq!(ws & 8, 8);
        assert_eq!(u64::from(ws >> 8) << 16, (8192 << 20) - (1 << 20));
    }

    #[test]
    fn flush_page_and_wpr2() {
        let mut t = fb("tu102", 8192, None);
        t.write(NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI, 0x12);
        t.write(NV_PFB_NISO_FLUSH_SYSMEM_ADDR, 0x1234_5600 >> 8);
        assert_eq!(t.flush_page(), Some(0x1234_5600));
        let mut g = fb("ga102", 8192, None);
        g.write(NV_PFB_NISO_FLUSH_SYSMEM_ADDR_HI, 0xff00_0012);
        g.write(NV_PFB_NISO_FLUSH_SYSMEM_ADDR, 0x10);
        assert_eq!(g.flush_page(), Some((0x12 << 40) | 0x1000));
        assert_eq!(g.read(NV_PFB_PRI_MMU_WPR2_ADDR_HI), Some(0));
        g.write(NV_PFB_PRI_MMU_WPR2_ADDR_HI, 0xfff0);
        assert_eq!(g.wpr2(), None, "read-only to the CPU");
        g.set_wpr2(0x1_ff00_0000..0x1_ff10_0000);
        assert_eq!(g.read(NV_PFB_PRI_MMU_WPR2_ADDR_LO), Some(0x1ff000 << 4));
        assert_eq!(g.read(NV_PFB_PRI_MMU_WPR2_ADDR_HI), Some(0x1ff0e0 << 4));
        g.reset();
        assert_eq!((g.wpr2(), g.flush_page()), (None, None));
    }

    #[test]
    fn lies() {
        assert_eq!(
            fb("ga102", 8192, Some(FbLie::NoMemory)).read(NV_USABLE_FB_SIZE_IN_MB),
            Some(0)
        );
        assert_eq!(
            fb("ga102", 8192, Some(FbLie::Huge)).read(NV_USABLE_FB_SIZE_IN_MB),
            Some(2 << 20)
        );
        let ws = fb("ga102", 8192, Some(FbLie::VgaPastEnd))
            .read(NV_PDISP_VGA_WORKSPACE_BASE)
            .unwrap();
        assert!(u64::from(ws >> 8) << 16 > 8192 << 20);
        let mut w = fb("tu104", 8192, Some(FbLie::Wpr2Preset));
        assert_eq!(w.wpr2(), Some(PRESET_WPR2));
        w.reset();
        assert_eq!(w.wpr2(), Some(PRESET_WPR2), "every power-on");
        assert_eq!("huge".parse(), Ok(FbLie::Huge));
        assert!("big"
            .parse::<FbLie>()
            .unwrap_err()
            .to_string()
            .contains("wpr2-preset"));
    }
}
