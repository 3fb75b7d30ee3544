// SPDX-License-Identifier: GPL-2.0

//! The framebuffer layout of the GSP boot (Turing to Ada): where, counting down from the end of
//! video memory, FWSEC-FRTS puts its copy of the VBIOS (FRTS) and the booter finds the GSP's
//! bootloader, its ELF image, its heap and the WPR2 region that holds them, and where the
//! non-WPR heap lies below WPR2.
//!
//! The registers it starts from are the device's word: the usable FB size (per family), the
//! display fuse and the VGA workspace base. [`FbLayout`] validates them against what the driver
//! knows (the firmware's sizes, the chip family's constants) and computes every region with its
//! alignment, each step checked: a size that leaves no room, a workspace past the end of video
//! memory, a framebuffer larger than any board's, is refused with its name and value.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::{
    fmt,
    ops::Range, //
};

use crate::untrusted::{
    Untrusted,
    Validator, //
};

const SZ_4K: u64 = 1 << 12;
const SZ_64K: u64 = 1 << 16;
const SZ_128K: u64 = 1 << 17;
const SZ_1M: u64 = 1 << 20;
const SZ_1G: u64 = 1 << 30;

/// More video memory than any board of these chips has (48 GiB at most up to Ada, 80 GiB on
/// GA100); a larger size is a lie, refused before any arithmetic.
pub(crate) const MAX_FB_SIZE: u64 = 1 << 40;

pub(crate) use crate::family::FbFamily;

impl FbFamily {
    /// The name of the register that says how much video memory there is.
    pub(crate) const fn fb_size_register(self) -> &'static str {
        match self {
            FbFamily::Tu102 | FbFamily::Ga100 => "NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE",
            FbFamily::Ga102 => "NV_USABLE_FB_SIZE_IN_MB",
        }
    }

    /// Size of the FRTS region: 1 MiB, none on GA100 (whose region is empty but placed).
    pub(crate) const fn frts_size(self) -> u64 {
        match self {
            FbFamily::Ga100 => 0,
            FbFamily::Tu102 | FbFamily::Ga102 => SZ_1M,
        }
    }

    /// Whether the flush page address has a high register (bits 63:40).
    pub(crate) const fn flush_has_high(self) -> bool {
        !matches!(self, FbFamily::Tu102)
    }
}

/// The family's FB size register as read: the word (for the messages) and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FbSizeReg {
    pub(crate) raw: u32,
    pub(crate) fields: FbSizeFields,
}

/// What the FB size register's fields say, per family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FbSizeFields {
    /// Turing and GA100 (`NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE`): `magnitude << scale` MiB, of
    /// which ECC, when on, keeps one unit in 16.
    Range {
        magnitude: u32,
        scale: u32,
        ecc: bool,
    },
    /// GA102 and later (`NV_USABLE_FB_SIZE_IN_MB`): MiB.
    MiB(u32),
}

impl FbSizeFields {
    /// The usable FB size in bytes.
    fn bytes(self) -> u64 {
        match self {
            FbSizeFields::Range {
                magnitude,
                scale,
                ecc,
            } => {
                let size = u64::from(magnitude)
                    .checked_shl(scale)
                    .unwrap_or(u64::MAX)
                    .saturating_mul(SZ_1M);
                if ecc {
                    size / 16 * 15
                } else {
                    size
                }
            }
            FbSizeFields::MiB(mib) => u64::from(mib) * SZ_1M,
        }
    }
}

/// `NV_PDISP_VGA_WORKSPACE_BASE` as read: the word (for the messages) and its fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VgaWorkspaceReg {
    pub(crate) raw: u32,
    /// The base, in 64 KiB units.
    pub(crate) base: u32,
    /// Whether the base is set.
    pub(crate) valid: bool,
}

/// Size of the non-WPR heap below WPR2, every family.
const NON_WPR_HEAP_SIZE: u64 = SZ_1M;

/// The VGA workspace when the register does not say where it is: the last MiB (`NV_PRAMIN`'s
/// size).
const PRAMIN_SIZE: u64 = SZ_1M;

/// The VGA workspace when the register places it below the last MiB: the last 128 KiB.
const VBIOS_WORKSPACE_SIZE: u64 = SZ_128K;

/// The registers as read. The workspace base is read only where the display fuse leaves a
/// display engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FbRegs {
    /// The family's FB size register ([`FbFamily::fb_size_register`]).
    pub(crate) fb_size: FbSizeReg,
    /// `NV_PDISP_VGA_WORKSPACE_BASE`, where read.
    pub(crate) vga_workspace: Option<VgaWorkspaceReg>,
    /// GA100's MMU lock range, where read (GA100, and its `CFG_PRIV_LEVEL_MASK` lets the CPU
    /// read it).
    pub(crate) mmu_lock: Option<MmuLockRegs>,
}

/// GA100's MMU lock range, as read: the VBIOS may fence off the top of video memory with it
/// (on an A100, for the row remapper), and then the whole layout from FRTS down stays below it
/// (nouveau's `ga100_gsp_mmu_lock_lo` in `nvkm/subdev/gsp/tu102.c`, after OpenRM's
/// `kgspCalculateFbLayout`). Without a lock silicon reads a reversed range (OpenRM's invalid
/// range: LO all ones, HI 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MmuLockRegs {
    /// `NV_PFB_PRI_MMU_LOCK_ADDR_LO` and `_HI`'s page fields: 4 KiB page numbers, the first
    /// and the last page locked.
    pub(crate) lo: u32,
    pub(crate) hi: u32,
}

impl MmuLockRegs {
    /// Where the locked range starts, if it is a range (its last page not below its first) that
    /// starts above page 0 (which nouveau reads as no lock).
    pub(crate) fn start(&self) -> Option<u64> {
        let page = |page: u32| u64::from(page) * SZ_4K;
        (page(self.hi) >= page(self.lo))
            .then(|| page(self.lo))
            .filter(|&start| start != 0)
    }
}

/// How GSP-RM sizes its heap in WPR2: per firmware version and LIBOS generation (the driver
/// fills it from the version's headers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeapParams {
    /// LIBOS's own carve-out.
    pub(crate) os_carveout: u64,
    /// What RM needs to boot and initialise (up to the first client's allocation).
    pub(crate) base_rm: u64,
    /// What one client's allocations need.
    pub(crate) client_alloc: u64,
    /// Management overhead per GiB of video memory.
    pub(crate) per_gb_fb: u64,
    /// The smallest heap, in bytes.
    pub(crate) min: u64,
    /// The largest heap, in bytes, where the version has a bound.
    pub(crate) max: Option<u64>,
}

impl HeapParams {
    /// The heap for `fb_size` bytes of video memory: the sum of the parts, each part rounded
    /// up to whole MiB as the firmware does, then kept within the version's bounds.
    pub(crate) fn heap_size(&self, fb_size: u64) -> u64 {
        let per_gb = self
            .per_gb_fb
            .saturating_mul(fb_size.div_ceil(SZ_1G))
            .saturating_add(SZ_1M - 1)
            & !(SZ_1M - 1);
        let client = self.client_alloc.saturating_add(SZ_1M - 1) & !(SZ_1M - 1);
        let size = self
            .os_carveout
            .saturating_add(self.base_rm)
            .saturating_add(client)
            .saturating_add(per_gb)
            .max(self.min);
        self.max.map_or(size, |max| size.min(max))
    }
}

/// What the driver knows before it reads a register: the family and the sizes of what the
/// regions will hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FbNeeds {
    pub(crate) family: FbFamily,
    /// The GSP bootloader's ucode (the boot region).
    pub(crate) bootloader: u64,
    /// The GSP image's `.fwimage` (the ELF region).
    pub(crate) elf: u64,
    /// The firmware version's heap sizing.
    pub(crate) heap: HeapParams,
    /// Size of the version's `GspFwWprMeta`, which starts WPR2.
    pub(crate) wpr_meta: u64,
}

/// The framebuffer layout, every region inside video memory, in this order from the top: VGA
/// workspace, FRTS, boot, ELF, heap (WPR2 ends with FRTS and starts below the heap, with the
/// WPR meta), non-WPR heap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FbLayout {
    pub(crate) fb: Range<u64>,
    pub(crate) vga_workspace: Range<u64>,
    pub(crate) frts: Range<u64>,
    pub(crate) boot: Range<u64>,
    pub(crate) elf: Range<u64>,
    pub(crate) wpr2_heap: Range<u64>,
    pub(crate) wpr2: Range<u64>,
    pub(crate) non_wpr_heap: Range<u64>,
}

/// Why the registers give no layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FbError {
    /// The size register says there is no video memory.
    NoMemory { register: &'static str, raw: u32 },
    /// The size register says more than any board has.
    TooLarge {
        register: &'static str,
        raw: u32,
        size: u64,
    },
    /// The VGA workspace register places the workspace past the end of video memory.
    WorkspacePastEnd { raw: u32, base: u64, fb_size: u64 },
    /// A region does not fit below the one above it.
    NoRoom {
        region: &'static str,
        size: u64,
        below: u64,
    },
}

impl fmt::Display for FbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FbError::NoMemory { register, raw } => write!(
                f,
                "no video memory: {register} reads {raw:#010x}"
            ),
            FbError::TooLarge {
                register,
                raw,
                size,
            } => write!(
                f,
                "{register} reads {raw:#010x}: {} GiB, more than any board has ({} GiB at most)",
                size / SZ_1G,
                MAX_FB_SIZE / SZ_1G
            ),
            FbError::WorkspacePastEnd { raw, base, fb_size } => write!(
                f,
                "VGA workspace base {base:#x} (NV_PDISP_VGA_WORKSPACE_BASE {raw:#010x}) is past the end of video memory ({fb_size:#x})"
            ),
            FbError::NoRoom {
                region,
                size,
                below,
            } => write!(
                f,
                "no room for the {region} region ({size:#x} bytes) below {below:#x}: video memory too small"
            ),
        }
    }
}

/// `value` rounded down to a multiple of `align` (a power of two).
const fn align_down(value: u64, align: u64) -> u64 {
    value & !(align - 1)
}

/// The start of a region of `size` bytes ending at or below `below`, aligned down to `align`.
fn place(region: &'static str, below: u64, size: u64, align: u64) -> Result<u64, FbError> {
    below
        .checked_sub(size)
        .map(|start| align_down(start, align))
        .ok_or(FbError::NoRoom {
            region,
            size,
            below,
        })
}

impl FbLayout {
    /// Where the VGA workspace starts: the register's base when it is valid and lies in the last
    /// MiB; the last 128 KiB when it lies lower; the last MiB without a valid register (or a
    /// display).
    fn vga_base(regs: &FbRegs, fb_size: u64) -> Result<u64, FbError> {
        let pramin = fb_size - PRAMIN_SIZE.min(fb_size);
        let Some(reg) = regs.vga_workspace.filter(|r| r.valid) else {
            return Ok(pramin);
        };
        let base = u64::from(reg.base) * SZ_64K;
        if base >= fb_size {
            Err(FbError::WorkspacePastEnd {
                raw: reg.raw,
                base,
                fb_size,
            })
        } else if base < pramin {
            Ok(fb_size - VBIOS_WORKSPACE_SIZE.min(fb_size))
        } else {
            Ok(base)
        }
    }

    /// Computes the layout from the registers.
    fn compute(regs: &FbRegs, needs: &FbNeeds) -> Result<FbLayout, FbError> {
        let family = needs.family;
        let register = family.fb_size_register();
        let fb_size = regs.fb_size.fields.bytes();
        let raw = regs.fb_size.raw;
        if fb_size == 0 {
            return Err(FbError::NoMemory { register, raw });
        }
        if fb_size > MAX_FB_SIZE {
            return Err(FbError::TooLarge {
                register,
                raw,
                size: fb_size,
            });
        }
        let vga = Self::vga_base(regs, fb_size)?;
        // What the MMU lock fences off is not used either.
        let top = regs
            .mmu_lock
            .and_then(|l| l.start())
            .map_or(vga, |lock| lock.min(vga));
        let frts_size = family.frts_size();
        let frts = place("FRTS", align_down(top, SZ_128K), frts_size, 1)?;
        let boot = place("boot", frts, needs.bootloader, SZ_4K)?;
        let elf = place("ELF", boot, needs.elf, SZ_64K)?;
        let heap_size = needs.heap.heap_size(fb_size);
        let heap = place("WPR2 heap", elf, heap_size, SZ_1M)?;
        let wpr2 = place("WPR2", heap, needs.wpr_meta, SZ_1M)?;
        let non_wpr = place("non-WPR heap", wpr2, NON_WPR_HEAP_SIZE, 1)?;
        Ok(FbLayout {
            fb: 0..fb_size,
            vga_workspace: vga..fb_size,
            frts: frts..frts + frts_size,
            boot: boot..boot + needs.bootloader,
            elf: elf..elf + needs.elf,
            wpr2_heap: heap..align_down(elf, SZ_1M),
            wpr2: wpr2..frts + frts_size,
            non_wpr_heap: non_wpr..wpr2,
        })
    }
}

impl Validator<(&Untrusted<FbRegs>, FbNeeds)> for FbLayout {
    type Err = FbError;

    fn validate((regs, needs): (&FbRegs, FbNeeds)) -> Result<FbLayout, FbError> {
        FbLayout::compute(regs, &needs)
    }
}

impl fmt::Display for FbLayout {
    /// One line: every region, top down, as `name start..end`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = |f: &mut fmt::Formatter<'_>, name: &str, r: &Range<u64>| {
            write!(f, "{name} {:#x}..{:#x}", r.start, r.end)
        };
        write!(f, "{} MiB: ", self.fb.end / SZ_1M)?;
        r(f, "VGA", &self.vga_workspace)?;
        f.write_str(", ")?;
        r(f, "FRTS", &self.frts)?;
        f.write_str(", ")?;
        r(f, "boot", &self.boot)?;
        f.write_str(", ")?;
        r(f, "ELF", &self.elf)?;
        f.write_str(", ")?;
        r(f, "heap", &self.wpr2_heap)?;
        f.write_str(", ")?;
        r(f, "WPR2", &self.wpr2)?;
        f.write_str(", ")?;
        r(f, "non-WPR heap", &self.non_wpr_heap)
    }
}

/// The WPR2 registers' page fields as read: 4 KiB page numbers, the region's first page and
/// the first page of its last granule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Wpr2Regs {
    pub(crate) lo: u32,
    pub(crate) hi: u32,
}

/// WPR2's granule: the region starts and ends on 128 KiB boundaries, and its upper register
/// holds the start of its last granule (NVIDIA's booter adds one granule for the end).
pub(crate) const WPR2_GRANULE: u64 = SZ_128K;

/// What the WPR2 registers say: no region, or one (its bounds as the device states them; each
/// use checks them against what it expects).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Wpr2 {
    Unset,
    Set(Range<u64>),
}

impl Validator<Untrusted<Wpr2Regs>> for Wpr2 {
    type Err = core::convert::Infallible;

    /// Any value means something: only a zero upper page is no region (as NVIDIA's drivers
    /// read it). An upper bound below the lower one is still a region (set, and wrong): it
    /// passes no check that wants WPR2 unset or at a given place.
    fn validate(regs: Wpr2Regs) -> Result<Wpr2, Self::Err> {
        let address = |page: u32| u64::from(page) * SZ_4K;
        let (start, last) = (address(regs.lo), address(regs.hi));
        Ok(if last == 0 {
            Wpr2::Unset
        } else {
            Wpr2::Set(start..last + WPR2_GRANULE)
        })
    }
}
