// SPDX-License-Identifier: GPL-2.0

//! `GspFwWprMeta`, the booter's input, as the model's booter checks it before it "copies"
//! GSP-RM into WPR2: 256 bytes in guest memory, at the address the driver put in SEC2's
//! mailboxes (the same layout in 535.113.01 and 570.144 up to offset 241; see
//! `gsp/fw/<version>/nvrm.h`).
//!
//! What is checked, each failure named:
//! - the magic and revision;
//! - the ELF: `sizeOfRadix3Elf` is the size of the version's `.fwimage`, and the radix3 page
//!   tables at `sysmemAddrOfRadix3Elf` (level 0: one page whose first entry is the level 1
//!   page; level 1: one entry per level 2 page; level 2: one entry per 4 KiB page of the
//!   image, in order) map exactly the bytes of `.fwimage`;
//! - the bootloader: its size and bytes are the ucode of `bootloader-<version>.bin`, and its
//!   code, data and manifest offsets the file's;
//! - the signature: its bytes are the chip's `.fwsignature_*` section;
//! - the framebuffer layout against the FB unit: `fbSize`, the FRTS region FWSEC-FRTS made,
//!   `gspFwWprEnd` its end, the VGA workspace above it and inside the FB; below the FRTS
//!   region, in order and without overlap, the bootloader's copy (`bootBinOffset`), the ELF's
//!   (`gspFwOffset`), the heap (`gspFwHeapOffset`, and `gspFwHeapSize` the one size the
//!   version computes for the chip and its FB: [`super::wpr_heap`]), WPR2's start
//!   (`gspFwWprStart`) with room for this structure below the heap, and the non-WPR heap below
//!   that; every region 4 KiB aligned.
//!
//! A good meta gives the WPR2 the booter sets: `gspFwWprStart..gspFwWprEnd`.
//!
//! The FSP chain of Hopper and Blackwell hands the same structure to GSP-FMC with the firmware
//! fields filled but only the sizes of the FB layout ([`check_sizes`]: every offset 0, the
//! FMC lays WPR2 out); the firmware checks ([`check_bootloader`], [`check_image`]) serve both
//! paths, each failure a [`Refusal`] that each path words its own way.

use std::ops::Range;

use super::package::{
    RiscvBootloader,
    VersionFiles, //
};
use super::wire::{
    get_u64,
    PAGE, //
};
use super::wpr_heap::{
    self,
    Around,
    ChipHeap, //
};
use crate::chipset::Chipset;
use crate::guest_mem::Sysmem;

/// The structure's size.
pub const SIZE: usize = 256;
/// `GSP_FW_WPR_META_MAGIC` and `GSP_FW_WPR_META_REVISION` (both versions).
const MAGIC: u64 = 0xdc3a_ae21_371a_60b3;
const REVISION: u64 = 1;

/// Member offsets.
mod off {
    pub const MAGIC: usize = 0;
    pub const REVISION: usize = 8;
    pub const RADIX3_ELF: usize = 16;
    pub const SIZE_OF_RADIX3_ELF: usize = 24;
    pub const BOOTLOADER: usize = 32;
    pub const SIZE_OF_BOOTLOADER: usize = 40;
    pub const BOOTLOADER_CODE_OFFSET: usize = 48;
    pub const BOOTLOADER_DATA_OFFSET: usize = 56;
    pub const BOOTLOADER_MANIFEST_OFFSET: usize = 64;
    pub const SIGNATURE: usize = 72;
    pub const SIZE_OF_SIGNATURE: usize = 80;
    pub const NON_WPR_HEAP_OFFSET: usize = 96;
    pub const NON_WPR_HEAP_SIZE: usize = 104;
    pub const WPR_START: usize = 112;
    pub const HEAP_OFFSET: usize = 120;
    pub const HEAP_SIZE: usize = 128;
    pub const FW_OFFSET: usize = 136;
    pub const BOOT_BIN_OFFSET: usize = 144;
    pub const FRTS_OFFSET: usize = 152;
    pub const FRTS_SIZE: usize = 160;
    pub const WPR_END: usize = 168;
    pub const FB_SIZE: usize = 176;
    pub const VGA_OFFSET: usize = 184;
    pub const VGA_SIZE: usize = 192;
    pub const GSP_FW_RSVD_START: usize = 88;
    pub const VF_PARTITION_COUNT: usize = 240;
    pub const PMU_RESERVED_SIZE: usize = 244;
}

/// What the FB unit says, and the chip the heap is sized for.
pub struct FbFacts {
    pub size: u64,
    pub frts: Range<u64>,
    pub chip: &'static Chipset,
}

/// Why a check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A member holds `got` where `want` was due.
    Field {
        name: &'static str,
        got: u64,
        want: u64,
    },
    /// Guest memory differs from the file's bytes first at byte `at`.
    Bytes {
        what: String,
        at: usize,
        got: u8,
        want: u8,
    },
    /// Anything else (an unreadable or misaligned address, a table that does not fit).
    Other(String),
}

impl std::fmt::Display for Refusal {
    /// The booter's wording.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Field { name, got, want } => {
                write!(f, "{name} = {got:#x}, expected {want:#x}")
            }
            Refusal::Bytes {
                what,
                at,
                got,
                want,
            } => {
                write!(
                    f,
                    "{what} differs at byte {at:#x}: {got:#04x}, expected {want:#04x}"
                )
            }
            Refusal::Other(e) => f.write_str(e),
        }
    }
}

impl Refusal {
    /// The FSP's wording: what, then expected vs got.
    pub fn fsp(&self) -> String {
        match self {
            Refusal::Field { name, got, want } => format!("{name}, {want:#x} vs {got:#x}"),
            Refusal::Bytes {
                what,
                at,
                got,
                want,
            } => {
                format!("{what} byte {at:#x}, {want:#04x} vs {got:#04x}")
            }
            Refusal::Other(e) => e.clone(),
        }
    }
}

/// `Ok` when member `name` holds `want`.
fn expect(name: &'static str, got: u64, want: u64) -> Result<(), Refusal> {
    if got == want {
        Ok(())
    } else {
        Err(Refusal::Field { name, got, want })
    }
}

/// Reads `len` bytes of guest memory at `addr` and compares them with `want`; names the first
/// difference.
pub fn compare(mem: &mut Sysmem<'_>, addr: u64, want: &[u8], what: &str) -> Result<(), Refusal> {
    let mut got = vec![0u8; want.len()];
    mem.read(addr, &mut got)
        .map_err(|e| Refusal::Other(format!("{what} at {addr:#x}: {e}")))?;
    match (0..want.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => Err(Refusal::Bytes {
            what: what.to_string(),
            at: i,
            got: got[i],
            want: want[i],
        }),
    }
}

/// Walks the radix3 tables at `level0` and compares every page they map with `image`.
fn walk_radix3(mem: &mut Sysmem<'_>, level0: u64, image: &[u8]) -> Result<(), Refusal> {
    let other = |text: String| Refusal::Other(text);
    let page = PAGE as usize;
    let entries = page / 8;
    let pages = image.len().div_ceil(page);
    let read_page = |mem: &mut Sysmem<'_>, addr: u64, what: &str| {
        if addr % PAGE != 0 {
            return Err(other(format!("{what} at {addr:#x} is not page-aligned")));
        }
        let mut p = vec![0u8; page];
        mem.read(addr, &mut p)
            .map_err(|e| other(format!("{what} at {addr:#x}: {e}")))?;
        Ok(p)
    };
    let l0 = read_page(mem, level0, "radix3 level 0")?;
    let l1 = read_page(mem, get_u64(&l0, 0), "radix3 level 1")?;
    let level2_pages = pages.div_ceil(entries);
    if level2_pages > entries {
        return Err(other(format!(
            "an image of {pages} pages needs more than one level 1 page"
        )));
    }
    for l2_index in 0..level2_pages {
        let l2 = read_page(
            mem,
            get_u64(&l1, l2_index * 8),
            &format!("radix3 level 2 page {l2_index}"),
        )?;
        for e in 0..entries.min(pages - l2_index * entries) {
            let n = l2_index * entries + e;
            let addr = get_u64(&l2, e * 8);
            if addr % PAGE != 0 {
                return Err(other(format!(
                    "radix3 entry of image page {n} ({addr:#x}) not aligned"
                )));
            }
            let want = &image[n * page..((n + 1) * page).min(image.len())];
            compare(mem, addr, want, &format!("image page {n} (radix3)"))?;
        }
    }
    Ok(())
}

/// Checks the bootloader fields of `meta`: its size, offsets and bytes are `bl`'s.
pub fn check_bootloader(
    meta: &[u8],
    bl: &RiscvBootloader,
    mem: &mut Sysmem<'_>,
) -> Result<(), Refusal> {
    let v = |at: usize| get_u64(meta, at);
    expect(
        "sizeOfBootloader",
        v(off::SIZE_OF_BOOTLOADER),
        bl.ucode.len() as u64,
    )?;
    expect(
        "bootloaderCodeOffset",
        v(off::BOOTLOADER_CODE_OFFSET),
        bl.code_offset.into(),
    )?;
    expect(
        "bootloaderDataOffset",
        v(off::BOOTLOADER_DATA_OFFSET),
        bl.data_offset.into(),
    )?;
    expect(
        "bootloaderManifestOffset",
        v(off::BOOTLOADER_MANIFEST_OFFSET),
        bl.manifest_offset.into(),
    )?;
    compare(mem, v(off::BOOTLOADER), &bl.ucode, "bootloader")
}

/// Checks the image fields of `meta`: the radix3 tables map `image` and the signature is
/// `signature`.
pub fn check_image(
    meta: &[u8],
    image: &[u8],
    signature: &[u8],
    mem: &mut Sysmem<'_>,
) -> Result<(), Refusal> {
    let v = |at: usize| get_u64(meta, at);
    expect(
        "sizeOfRadix3Elf",
        v(off::SIZE_OF_RADIX3_ELF),
        image.len() as u64,
    )?;
    expect(
        "sizeOfSignature",
        v(off::SIZE_OF_SIGNATURE),
        signature.len() as u64,
    )?;
    compare(mem, v(off::SIGNATURE), signature, "signature")?;
    walk_radix3(mem, v(off::RADIX3_ELF), image)
}

/// Checks the magic and the revision.
pub fn check_magic(meta: &[u8]) -> Result<(), Refusal> {
    expect("magic", get_u64(meta, off::MAGIC), MAGIC)?;
    expect("revision", get_u64(meta, off::REVISION), REVISION)
}

/// Checks the meta `meta` against the version's files, the FB unit and guest memory; returns
/// the WPR2 region the booter sets.
pub fn check(
    meta: &[u8],
    files: &mut VersionFiles,
    fb: &FbFacts,
    mem: &mut Sysmem<'_>,
) -> Result<Range<u64>, String> {
    let v = |at: usize| get_u64(meta, at);
    if v(off::MAGIC) != MAGIC || v(off::REVISION) != REVISION {
        return Err(format!(
            "magic {:#x} revision {}, expected {MAGIC:#x} revision {REVISION}",
            v(off::MAGIC),
            v(off::REVISION)
        ));
    }
    check_bootloader(meta, &files.bootloader, mem).map_err(|e| e.to_string())?;
    let (image, signature) = files.image()?;
    check_image(meta, image, signature, mem).map_err(|e| e.to_string())?;
    let expect = |name: &'static str, got: u64, want: u64| {
        expect(name, got, want).map_err(|e| e.to_string())
    };

    expect("fbSize", v(off::FB_SIZE), fb.size)?;
    expect("frtsOffset", v(off::FRTS_OFFSET), fb.frts.start)?;
    expect("frtsSize", v(off::FRTS_SIZE), fb.frts.end - fb.frts.start)?;
    expect("gspFwWprEnd", v(off::WPR_END), fb.frts.end)?;
    let vga = v(off::VGA_OFFSET)..v(off::VGA_OFFSET).saturating_add(v(off::VGA_SIZE));
    if vga.start < fb.frts.end || vga.end > fb.size || vga.is_empty() {
        return Err(format!(
            "VGA workspace {:#x}..{:#x} not between the FRTS region's end {:#x} and the FB's {:#x}",
            vga.start, vga.end, fb.frts.end, fb.size
        ));
    }
    // From the top down: bootloader, ELF, heap, each below the one above it.
    // What the driver wrote: added without overflowing (a sum past 2^64 is past the FB).
    let region = |o: usize, s: usize| v(o)..v(o).saturating_add(v(s));
    let boot = region(off::BOOT_BIN_OFFSET, off::SIZE_OF_BOOTLOADER);
    let elf = region(off::FW_OFFSET, off::SIZE_OF_RADIX3_ELF);
    let heap = region(off::HEAP_OFFSET, off::HEAP_SIZE);
    let wpr_start = v(off::WPR_START);
    let non_wpr = region(off::NON_WPR_HEAP_OFFSET, off::NON_WPR_HEAP_SIZE);
    for (name, start) in [
        ("bootBinOffset", boot.start),
        ("gspFwOffset", elf.start),
        ("gspFwHeapOffset", heap.start),
        ("gspFwWprStart", wpr_start),
        ("nonWprHeapOffset", non_wpr.start),
    ] {
        if start % PAGE != 0 {
            return Err(format!("{name} {start:#x} is not 4 KiB aligned"));
        }
    }
    let order = [
        ("the bootloader", &boot, fb.frts.start),
        ("the ELF", &elf, boot.start),
        ("the heap", &heap, elf.start),
    ];
    for (name, region, limit) in order {
        if region.end > limit || region.is_empty() {
            return Err(format!(
                "{name} {:#x}..{:#x} runs into what lies above it at {limit:#x}",
                region.start, region.end
            ));
        }
    }
    wpr_heap::check(
        v(off::HEAP_SIZE),
        files.version,
        fb.chip.name,
        ChipHeap::of(fb.chip),
        fb.size,
        Some(Around {
            above: fb.size.saturating_sub(elf.start),
            non_wpr_heap: v(off::NON_WPR_HEAP_SIZE),
        }),
    )?;
    if wpr_start.saturating_add(SIZE as u64) > heap.start || non_wpr.end > wpr_start {
        return Err(format!(
            "gspFwWprStart {wpr_start:#x} leaves no room for the meta below the heap at {:#x}, \
             or the non-WPR heap ending at {:#x} runs into it",
            heap.start, non_wpr.end
        ));
    }
    Ok(wpr_start..fb.frts.end)
}

/// The FB layout's sizes a meta of the FSP chain must carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    pub non_wpr_heap: u64,
    pub pmu_reserved: u64,
}

/// The heap a meta of the FSP chain must ask for: what 570.144 computes for `fb_size` bytes on
/// `chip` (`kgspCalculateFbLayout_GH100` passes no bound), named `family` in the refusal.
pub fn check_fsp_heap(
    meta: &[u8],
    chip: ChipHeap,
    family: &str,
    fb_size: u64,
) -> Result<(), Refusal> {
    wpr_heap::check(
        get_u64(meta, off::HEAP_SIZE),
        super::wire::Version::R570_144,
        family,
        chip,
        fb_size,
        None,
    )
    .map_err(Refusal::Other)
}

/// The FRTS region's size and the VGA workspace's.
const FRTS_SIZE: u64 = 1 << 20;
const VGA_WORKSPACE_SIZE: u64 = 128 << 10;

/// Checks the FB layout of a meta of the FSP chain: `sizes` and the fixed sizes, no VF
/// partitions, and every offset 0 (GSP-FMC lays WPR2 out itself).
pub fn check_sizes(meta: &[u8], sizes: &Sizes) -> Result<(), Refusal> {
    let v = |at: usize| get_u64(meta, at);
    expect("frtsSize", v(off::FRTS_SIZE), FRTS_SIZE)?;
    expect("vgaWorkspaceSize", v(off::VGA_SIZE), VGA_WORKSPACE_SIZE)?;
    expect(
        "pmuReservedSize",
        u64::from(super::wire::get_u32(meta, off::PMU_RESERVED_SIZE)),
        sizes.pmu_reserved,
    )?;
    expect(
        "nonWprHeapSize",
        v(off::NON_WPR_HEAP_SIZE),
        sizes.non_wpr_heap,
    )?;
    expect(
        "gspFwHeapVfPartitionCount",
        u64::from(meta[off::VF_PARTITION_COUNT]),
        0,
    )?;
    for (name, at) in [
        ("gspFwRsvdStart", off::GSP_FW_RSVD_START),
        ("nonWprHeapOffset", off::NON_WPR_HEAP_OFFSET),
        ("gspFwWprStart", off::WPR_START),
        ("gspFwHeapOffset", off::HEAP_OFFSET),
        ("gspFwOffset", off::FW_OFFSET),
        ("bootBinOffset", off::BOOT_BIN_OFFSET),
        ("frtsOffset", off::FRTS_OFFSET),
        ("gspFwWprEnd", off::WPR_END),
        ("fbSize", off::FB_SIZE),
        ("vgaWorkspaceOffset", off::VGA_OFFSET),
    ] {
        expect(name, v(at), 0)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsp_sizes_name_the_first_wrong_member() {
        let sizes = Sizes {
            non_wpr_heap: 2 << 20,
            pmu_reserved: 0,
        };
        let mut meta = vec![0u8; SIZE];
        let mut put = |at: usize, v: u64| meta[at..at + 8].copy_from_slice(&v.to_le_bytes());
        put(off::FRTS_SIZE, FRTS_SIZE);
        put(off::VGA_SIZE, VGA_WORKSPACE_SIZE);
        put(off::NON_WPR_HEAP_SIZE, 2 << 20);
        put(off::HEAP_SIZE, 135 << 20);
        assert_eq!(check_sizes(&meta, &sizes), Ok(()));
        meta[off::FB_SIZE] = 1;
        let e = check_sizes(&meta, &sizes).unwrap_err();
        assert_eq!(e.fsp(), "fbSize, 0x0 vs 0x1");
        assert_eq!(e.to_string(), "fbSize = 0x1, expected 0x0");
    }
}
