// SPDX-License-Identifier: GPL-2.0

//! The framebuffer layout's validator (`fb/layout.rs`) and the versioned heap sizing
//! (`gsp/wpr.rs`): one layout worked out by hand, every chip and version against the layout's
//! promises (checked in `check::fb_layout`), every register lie refused by name, and register
//! values of every kind never panic.

use nova_core_parse::check;

const MIB: u64 = 1 << 20;

/// The emulated GPU's registers for `mib` MiB of video memory on GA102 to Ada, and its VGA
/// workspace in the last MiB (valid).
fn ga102_regs(mib: u32) -> (u32, u32, u32) {
    let vga = (u64::from(mib) - 1) * MIB;
    (mib, 0, (((vga >> 16) as u32) << 8) | 8)
}

const BOOTLOADER: u64 = 0x6000;
const ELF: u64 = 16 * MIB;

#[test]
fn one_layout_worked_out_by_hand() {
    let (size, fuse, vga) = ga102_regs(24 * 1024);
    let l = check::fb_layout("ga102", "570.144", size, fuse, vga, BOOTLOADER, ELF).unwrap();
    assert_eq!(l.fb, (0, 0x6_0000_0000));
    assert_eq!(l.vga, (0x5_fff0_0000, 0x6_0000_0000));
    // 1 MiB below the workspace (aligned down to 128 KiB).
    assert_eq!(l.frts, (0x5_ffe0_0000, 0x5_fff0_0000));
    assert_eq!(l.boot, (0x5_ffdf_a000, 0x5_ffe0_0000));
    // 16 MiB below, aligned down to 64 KiB.
    assert_eq!(l.elf, (0x5_fedf_0000, 0x5_ffdf_0000));
    // 570.144 on LIBOS 3: 22 MiB carve-out + 8 MiB RM + 96 MiB client + 96 KiB x 24 GiB
    // (rounded up to 3 MiB) = 129 MiB, within 88..280 MiB.
    assert_eq!(check::heap_size("570.144", true, 24 << 30), Some(129 * MIB));
    assert_eq!(l.heap, (0x5_f6c0_0000, 0x5_fed0_0000));
    assert_eq!(l.wpr2, (0x5_f6b0_0000, 0x5_fff0_0000));
    assert_eq!(l.non_wpr_heap, (0x5_f6a0_0000, 0x5_f6b0_0000));
    assert!(l
        .text
        .starts_with("24576 MiB: VGA 0x5fff00000..0x600000000, FRTS "));
}

#[test]
fn heap_sizing_differs_where_the_versions_differ() {
    // LIBOS 3's carve-out: 20 MiB in 535.113.01, 22 MiB in 570.144.
    assert_eq!(
        check::heap_size("535.113.01", true, 24 << 30),
        Some(127 * MIB)
    );
    // LIBOS 2 (Turing, GA100): no carve-out, 107 MiB for 24 GiB, the same in both.
    for v in ["535.113.01", "570.144"] {
        assert_eq!(check::heap_size(v, false, 24 << 30), Some(107 * MIB));
    }
    // The bounds: 570.144 caps the heap (LIBOS 2 at 256 MiB, LIBOS 3 at 280 MiB), 535.113.01
    // does not; 4 TiB asks for 96 KiB x 4096 = 384 MiB of overhead alone.
    assert_eq!(check::heap_size("570.144", false, 4 << 40), Some(256 * MIB));
    assert_eq!(check::heap_size("570.144", true, 4 << 40), Some(280 * MIB));
    assert_eq!(
        check::heap_size("535.113.01", false, 4 << 40),
        Some(488 * MIB)
    );
    assert_eq!(
        check::heap_size("535.113.01", true, 4 << 40),
        Some(508 * MIB)
    );
}

#[test]
fn every_chip_and_version_has_a_layout_for_the_emulated_gpu() {
    let mut seen = 0;
    for chip in check::chip_names() {
        for version in ["535.113.01", "570.144"] {
            for mib in [4096, 24 * 1024, 48 * 1024] {
                let (ga102, tu) = (ga102_regs(mib), ((mib >> 10) << 4) | 10);
                let regs = match chip {
                    c if c.starts_with("tu") => (tu, 0, ga102.2),
                    // GA100: the display is fused off, the workspace not read.
                    "ga100" => (tu, 1, 0xdead_beef),
                    c if c.starts_with("ga") || c.starts_with("ad") => ga102,
                    _ => continue,
                };
                let l = check::fb_layout(chip, version, regs.0, regs.1, regs.2, BOOTLOADER, ELF)
                    .unwrap_or_else(|e| panic!("{chip} {version} {mib} MiB: {e}"));
                assert_eq!(l.fb.1, u64::from(mib) * MIB);
                if chip == "ga100" {
                    // No display: the workspace is the last MiB; FRTS is empty but placed.
                    assert_eq!(l.vga.0, l.fb.1 - MIB);
                    assert_eq!(l.frts.0, l.frts.1);
                }
                seen += 1;
            }
        }
    }
    // Turing 5, Ampere 6 (with GA100), Ada 5: 16 chips, 2 versions, 3 sizes.
    assert_eq!(seen, 16 * 2 * 3);
}

#[test]
fn each_lie_is_refused_by_name() {
    let fb = |chip, regs: (u32, u32, u32)| {
        check::fb_layout(chip, "570.144", regs.0, regs.1, regs.2, BOOTLOADER, ELF)
    };
    let (size, fuse, vga) = ga102_regs(8192);
    assert_eq!(
        fb("ga102", (0, fuse, vga)).unwrap_err(),
        "no video memory: NV_USABLE_FB_SIZE_IN_MB reads 0x00000000"
    );
    assert!(fb("ga102", (2 << 20, fuse, vga))
        .unwrap_err()
        .contains("2048 GiB, more than any board has (1024 GiB at most)"));
    // Turing's largest: 63 << 15 MiB.
    assert!(fb("tu102", (0x3ff, 0, vga))
        .unwrap_err()
        .starts_with("NV_PFB_PRI_MMU_LOCAL_MEMORY_RANGE reads 0x000003ff"));
    let past = (((8192 + 16) << 4) << 8) | 8;
    assert_eq!(
        fb("ga102", (size, fuse, past)).unwrap_err(),
        "VGA workspace base 0x201000000 (NV_PDISP_VGA_WORKSPACE_BASE 0x02010008) is past the end of video memory (0x200000000)"
    );
    // Too little memory for the regions: the heap is the first that does not fit.
    let small = ga102_regs(64);
    assert!(fb("ga102", small)
        .unwrap_err()
        .starts_with("no room for the WPR2 heap region (0x7f00000 bytes) below "));
    // Less than a MiB: FRTS has no room.
    assert!(fb("tu102", (0x10, 0, 0))
        .unwrap_err()
        .starts_with("no room for the FRTS region"));
}

#[test]
fn the_workspace_register_is_read_as_upstream_reads_it() {
    let (size, fuse, _) = ga102_regs(8192);
    let end = 8192 * MIB;
    let at = |vga| check::fb_layout("ga102", "570.144", size, fuse, vga, BOOTLOADER, ELF);
    // Not valid (bit 3 clear): the last MiB.
    assert_eq!(at(0xffff_ff00).unwrap().vga.0, end - MIB);
    // Valid but below the last MiB: the last 128 KiB.
    assert_eq!(at((0x100 << 8) | 8).unwrap().vga.0, end - (128 << 10));
    // Valid in the last MiB: where it says.
    let base = end - 0x80000;
    let l = at((((base >> 16) as u32) << 8) | 8).unwrap();
    assert_eq!(l.vga.0, base);
    // FRTS ends at the workspace aligned down to 128 KiB.
    assert_eq!(l.frts.1, base & !0x1ffff);
    // The display fused off: the register is not read, whatever it holds.
    assert_eq!(
        check::fb_layout("ga102", "570.144", size, 1, 8, BOOTLOADER, ELF)
            .unwrap()
            .vga
            .0,
        end - MIB
    );
}

#[test]
fn wpr2_registers() {
    // Bits 31:4 of each hold an address >> 12: LO the first byte, HI the start of the last
    // 128 KiB granule (NVIDIA's own booter adds 128 KiB to it for the end).
    assert_eq!(check::wpr2(0, 0), None);
    assert_eq!(
        check::wpr2(0xffff_fff0, 0),
        None,
        "a zero upper bound is no region"
    );
    assert_eq!(
        check::wpr2(0x1ff000 << 4, (0x1ff0e0 << 4) | 0xf),
        Some((0x1_ff00_0000, 0x1_ff10_0000))
    );
    // An upper bound below the lower one is still a region, not "unset".
    assert_eq!(
        check::wpr2(0x1ff000 << 4, 0x1000 << 4),
        Some((0x1_ff00_0000, 0x102_0000))
    );
    // One granule: LO and HI equal.
    assert_eq!(
        check::wpr2(0x1ff000 << 4, 0x1ff000 << 4),
        Some((0x1_ff00_0000, 0x1_ff02_0000))
    );
}

#[test]
fn any_register_values_never_panic() {
    // A small deterministic generator: every bit pattern class, every chip family.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut accepted = 0;
    for _ in 0..20_000 {
        let r = next();
        let chip = ["tu102", "tu117", "ga100", "ga102", "ad107"][(r % 5) as usize];
        let version = ["535.113.01", "570.144"][(r >> 3) as usize % 2];
        let size = next() as u32 >> (next() % 32);
        let vga = next() as u32;
        let fuse = next() as u32 & 1;
        let bl = next() % (4 * MIB);
        let elf = next() % (256 * MIB);
        // GA100's MMU lock registers, any values (fb_layout_locked checks the layout stays
        // below a lock it takes).
        let lock = (next() as u32 & 1, next() as u32, next() as u32);
        let regs = (size, fuse, vga);
        if check::fb_layout_locked(chip, version, regs, lock, bl, elf).is_ok() {
            accepted += 1;
        }
    }
    // Both outcomes happen: the sweep reaches the checks behind acceptance.
    assert!(accepted > 100, "{accepted}");
}

/// The layout nouveau computes (`nvkm/subdev/gsp/tu102.c`, `tu102_gsp_oneinit` and
/// `tu102_gsp_wpr_heap_size`; `tu102_gsp_vga_workspace_addr`), restated from its steps with
/// its per-version numbers (`rm/r535/rm.c`, `rm/r570/rm.c`, the `GSP_FW_HEAP_*` constants of
/// `rm/r535/nvrm/gsp.h` and `rm/r570/nvrm/gsp.h`): VGA workspace, FRTS, boot, ELF, heap, WPR2,
/// non-WPR heap, as (start, end). On GA100, `lock` holds the MMU lock registers (`cfg`, `lo`,
/// `hi`), below which nouveau keeps the layout (`ga100_gsp_mmu_lock_lo`, after OpenRM).
fn nouveau_layout(
    chip: &str,
    version: &str,
    fb: u64,
    vga_reg: Option<u32>,
    lock: (u32, u32, u32),
) -> [(u64, u64); 7] {
    let down = |x: u64, a: u64| x & !(a - 1);
    let up = |x: u64, a: u64| (x + a - 1) & !(a - 1);
    // tu102_gsp_vga_workspace_addr: no display (GA100), or the register's valid bit clear,
    // gives the last MiB; a base below it gives the last 128 KiB.
    let vga = match vga_reg {
        Some(r) if r & 8 != 0 => {
            let addr = u64::from(r & 0xffff_ff00) << 8;
            if addr < fb - MIB {
                fb - 0x20000
            } else {
                addr
            }
        }
        _ => fb - MIB,
    };
    // ga100_gsp_mmu_lock_lo: the lock's low address when CFG_PRIV_LEVEL_MASK bit 0 is set and
    // its range is not reversed, else 0; tu102_gsp_oneinit takes the lower of it and the
    // workspace, on GA100 only.
    let (cfg, lo, hi) = lock;
    let page = |r: u32| u64::from(r >> 4) << 12;
    let lock_lo = if cfg & 1 != 0 && page(hi) >= page(lo) {
        page(lo)
    } else {
        0
    };
    let bios = if chip == "ga100" && lock_lo != 0 {
        vga.min(lock_lo)
    } else {
        vga
    };
    let frts_size = if chip == "ga100" { 0 } else { MIB };
    let frts = down(bios, 0x20000) - frts_size;
    let boot = down(frts - BOOTLOADER, 0x1000);
    let elf = down(boot - ELF, 0x10000);
    let libos3 = !(chip.starts_with("tu") || chip == "ga100");
    let carveout = match (libos3, version) {
        (false, _) => 0,
        (true, "535.113.01") => 20 * MIB,
        (true, _) => 22 * MIB,
    };
    let gb = fb.div_ceil(1 << 30);
    // nouveau compares its heap_size_min (a number of MiB) with bytes, so it never binds;
    // the sum below is over 100 MiB for every size anyway.
    let heap_size = carveout + 8 * MIB + up((96 << 10) * gb, MIB) + up((48 << 10) * 2048, MIB);
    let heap = down(elf - heap_size, MIB);
    let heap_end = heap + down(elf - heap, MIB);
    let wpr2 = down(heap - 1, MIB);
    [
        (vga, fb),
        (frts, frts + frts_size),
        (boot, boot + BOOTLOADER),
        (elf, elf + ELF),
        (heap, heap_end),
        (wpr2, frts + frts_size),
        (wpr2 - MIB, wpr2),
    ]
}

#[test]
fn every_layout_is_nouveaus() {
    let mut compared = 0;
    for chip in check::chip_names() {
        let turing_regs = chip.starts_with("tu") || chip == "ga100";
        if !(turing_regs || chip.starts_with("ga") || chip.starts_with("ad")) {
            continue;
        }
        for version in ["535.113.01", "570.144"] {
            // Turing and GA100 give the size in whole GiB up to 63; GA102 on in MiB.
            let gibs: &[u64] = &[1, 2, 3, 4, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 63];
            let mut sizes: Vec<u64> = gibs.iter().map(|g| g << 10).collect();
            if !turing_regs {
                sizes.extend([
                    7 * 1024 + 512,
                    12 * 1024 + 1,
                    80 * 1024,
                    512 * 1024,
                    1 << 20,
                ]);
            }
            for mib in sizes {
                let fb = mib * MIB;
                for case in 0..4 {
                    // The workspace: in the last MiB; below it (the last 128 KiB then); below it
                    // with the register not valid (the last MiB then); in the last MiB off a
                    // 128 KiB boundary (FRTS aligned down from it).
                    let (vga_base, valid) = match case {
                        0 => (fb - MIB, true),
                        1 => (fb - 4 * MIB, true),
                        2 => (fb - 4 * MIB, false),
                        _ => (fb - MIB + 0x30000, true),
                    };
                    // GA100 reads no workspace (its display is fused off) but its MMU lock: not
                    // readable (CFG_PRIV_LEVEL_MASK bit 0 clear); from below the workspace, off
                    // a 128 KiB boundary, with the register's low bits set; from inside the
                    // workspace (no effect); from page 0 (nouveau's "not set"). KUnit
                    // `nova_core_fb` and the emulated GA100 have silicon's reversed "no lock".
                    let page = |addr: u64| ((addr >> 12) as u32) << 4;
                    let top = page(fb - 4096);
                    let below = page(fb - 6 * MIB - 0x10000);
                    let lock = match case {
                        0 => (0, below, top),
                        1 => (1, below | 0xf, top),
                        2 => (1, page(fb - MIB / 2), top),
                        _ => (1, 0, top),
                    };
                    let vga_reg = (((vga_base >> 16) as u32) << 8) | if valid { 8 } else { 0 };
                    let (size_reg, fuse) = if turing_regs {
                        ((((mib >> 10) as u32) << 4) | 10, u32::from(chip == "ga100"))
                    } else {
                        (mib as u32, 0)
                    };
                    let regs = (size_reg, fuse, vga_reg);
                    let ours = check::fb_layout_locked(chip, version, regs, lock, BOOTLOADER, ELF)
                        .unwrap_or_else(|e| panic!("{chip} {version} {mib} MiB: {e}"));
                    let vga_reg = (chip != "ga100").then_some(vga_reg);
                    let theirs = nouveau_layout(chip, version, fb, vga_reg, lock);
                    let ours = [
                        ours.vga,
                        ours.frts,
                        ours.boot,
                        ours.elf,
                        ours.heap,
                        ours.wpr2,
                        ours.non_wpr_heap,
                    ];
                    assert_eq!(ours, theirs, "{chip} {version} {mib} MiB, case {case}");
                    compared += 1;
                }
            }
        }
    }
    // 16 chips: 5 Turing and GA100 with GiB sizes only (15) and 4 cases (workspaces; GA100's
    // MMU locks), 10 with 20 sizes and 4; 2 versions.
    assert_eq!(compared, (6 * 15 * 4 + 10 * 20 * 4) * 2);
    // What nouveau leaves out cannot bind on a size the driver accepts (up to 1 TiB): 570.144's
    // heap bounds (OpenRM's kgspCalculateFbLayout clamps to GSP_FW_HEAP_SIZE_OVERRIDE_*_MAX_MB;
    // the driver does too) start at 256 MiB, and 1 TiB asks for 22 + 8 + 96 + 96 MiB.
    assert!(check::heap_size("570.144", true, 1 << 40).unwrap() < 256 * MIB);
}
