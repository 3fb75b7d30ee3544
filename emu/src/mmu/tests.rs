// SPDX-License-Identifier: GPL-2.0

use super::*;
use crate::logger::MemoryLog;

use v2::{PRIVILEGE, READ_ONLY, VALID, VOL};

/// A PDE naming video memory at `addr`, as nouveau's `gp100_vmm_pde` writes it.
fn pde(addr: u64) -> u64 {
    (addr >> 4) | (1 << 1)
}

/// A valid PTE for video memory at `addr`, as `gp100_vmm_pgt_pte` writes it.
fn pte(addr: u64) -> u64 {
    (addr >> 4) | VALID
}

const ROOT: u64 = 0x10_0000;
const PD2: u64 = 0x10_1000;
const PD1: u64 = 0x10_2000;
const PD0: u64 = 0x10_3000;
const SPT: u64 = 0x10_4000;
/// nouveau's big page tables are 256 bytes, 256-byte aligned inside a page.
const LPT: u64 = 0x10_5100;

/// BAR2 rooted at ROOT with the tables for VA 0..2 MiB built, no PTE yet.
fn setup() -> (Mmu, Vram, Logger, MemoryLog) {
    let (log, mem) = Logger::memory();
    let mut v = Vram::new(1 << 30);
    v.write_u64(ROOT, pde(PD2)).unwrap();
    v.write_u64(PD2, pde(PD1)).unwrap();
    v.write_u64(PD1, pde(PD0)).unwrap();
    v.write_u64(PD0 + 8, pde(SPT)).unwrap();
    let mut m = Mmu::new();
    m.set_root(Bar::Bar2, Some(ROOT));
    (m, v, log, mem)
}

fn read(m: &mut Mmu, v: &Vram, log: &Logger, bar: Bar, va: u64) -> u32 {
    let mut b = [0; 4];
    m.read_bar(bar, va, &mut b, v, None, log);
    u32::from_le_bytes(b)
}

fn invalidate(m: &mut Mmu, pdb: u64, all: bool) {
    m.write(
        NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB,
        (pdb >> 8) as u32,
    );
    m.write(NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_UPPER_PDB, 0);
    m.write(
        NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE,
        TRIGGER | 1 | if all { 6 } else { 0 },
    );
}

#[test]
fn a_small_pte_maps_its_page_for_reads_and_writes() {
    let (mut m, mut v, log, mem) = setup();
    v.write_u64(SPT + 3 * 8, pte(0x20_0000)).unwrap();
    v.write(0x20_0010, &0xcafe_f00du32.to_le_bytes()).unwrap();
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0x3010), 0xcafe_f00d);
    m.write_bar(Bar::Bar2, 0x3ffe, &[1, 2, 3, 4], &mut v, None, &log);
    // The write crosses into page 4, which is not mapped: its half is dropped and logged.
    assert_eq!(v.read_u32(0x20_0ffc).unwrap() >> 16, 0x0201);
    let log = mem.contents();
    assert!(
        log.contains(
            "BAR2 write at 0x4000 refused (an MMU fault): small PTE 4 at 0x104000 is not valid"
        ),
        "{log}"
    );
}

#[test]
fn the_tlb_keeps_a_translation_until_the_driver_invalidates_it() {
    let (mut m, mut v, log, _) = setup();
    v.write_u64(SPT, pte(0x20_0000)).unwrap();
    v.write(0x20_0000, &[0x11; 4]).unwrap();
    v.write(0x30_0000, &[0x22; 4]).unwrap();
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0), 0x1111_1111);
    v.write_u64(SPT, pte(0x30_0000)).unwrap();
    assert_eq!(
        read(&mut m, &v, &log, Bar::Bar2, 0),
        0x1111_1111,
        "stale until invalidated"
    );
    // An invalidate of another directory leaves it.
    invalidate(&mut m, 0x50_0000, false);
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0), 0x1111_1111);
    invalidate(&mut m, ROOT, false);
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0), 0x2222_2222);
    v.write_u64(SPT, pte(0x20_0000)).unwrap();
    invalidate(&mut m, 0x50_0000, true);
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0), 0x1111_1111);
    assert_eq!(m.tally().invalidates, 3);
    assert_eq!(
        m.read(NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE).unwrap() & TRIGGER,
        0
    );
}

#[test]
fn big_pages_2m_pages_sparse_and_ignored_small_ptes_follow_the_format() {
    let (mut m, mut v, log, mem) = setup();
    // Big page table in PD0 entry 0 with 64 KiB page 1 mapped; the small PTE under it too.
    v.write_u64(PD0, (LPT >> 4) | (1 << 1)).unwrap();
    // The rest of the big table's page is another table's: it must not be read as this one.
    v.write_u64(LPT - 0x100 + 8, pte(0x70_0000)).unwrap();
    v.write_u64(LPT + 8, pte(0x40_0000)).unwrap();
    v.write_u64(SPT + 16 * 8, pte(0x60_0000)).unwrap();
    v.write(0x40_1004, &[0x33; 4]).unwrap();
    assert_eq!(
        read(&mut m, &v, &log, Bar::Bar2, 0x1_1004),
        0x3333_3333,
        "the big PTE wins"
    );
    // Big PTE 2 sparse, 3 invalid with PRIVILEGE (small ones ignored), 4 invalid: small PTE.
    v.write_u64(LPT + 2 * 8, VOL).unwrap();
    v.write_u64(LPT + 3 * 8, PRIVILEGE).unwrap();
    v.write_u64(SPT + 48 * 8, pte(0x60_0000)).unwrap();
    v.write_u64(SPT + 64 * 8, pte(0x60_0000)).unwrap();
    v.write(0x60_0000, &[0x44; 4]).unwrap();
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0x2_0000), 0);
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0x3_0000), 0);
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0x4_0000), 0x4444_4444);
    let text = mem.contents();
    assert!(
        text.contains("BAR2 read at 0x30000 refused (an MMU fault): big PTE 3"),
        "{text}"
    );
    assert!(
        !text.contains("0x20000 refused"),
        "sparse is no fault: {text}"
    );
    // PD0 entry 1 (2 MiB..4 MiB) as a 2 MiB PTE.
    v.write_u64(PD0 + 16, pte(0x80_0000)).unwrap();
    v.write(0x80_0000 + 0x1_2344, &[0x55; 4]).unwrap();
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0x21_2344), 0x5555_5555);
}

#[test]
fn what_silicon_refuses_is_refused_by_name() {
    let (mut m, mut v, log, mem) = setup();
    // Read-only, system memory, peer, a table past the end, an empty PDE, no BAR1 root.
    v.write_u64(SPT, pte(0x20_0000) | READ_ONLY).unwrap();
    v.write_u64(SPT + 8, pte(0x20_0000) | (2 << 1)).unwrap();
    v.write_u64(SPT + 16, pte(0x20_0000) | (1 << 1)).unwrap();
    v.write_u64(PD1 + 8, pde(1 << 34)).unwrap();
    v.write(0x20_0000, &[7; 4]).unwrap();
    m.write_bar(Bar::Bar2, 0, &[9; 4], &mut v, None, &log);
    assert_eq!(v.read_u32(0x20_0000).unwrap(), 0x0707_0707);
    assert_eq!(
        read(&mut m, &v, &log, Bar::Bar2, 0),
        0x0707_0707,
        "reads through read-only are fine"
    );
    // WPR2 is out of any BAR's reach.
    let wpr2 = 0x20_0000..0x30_0000;
    let mut b = [0; 4];
    m.read_bar(Bar::Bar2, 0, &mut b, &v, Some(&wpr2), &log);
    assert_eq!(b, [0; 4]);
    read(&mut m, &v, &log, Bar::Bar2, 0x1000);
    read(&mut m, &v, &log, Bar::Bar2, 0x2000);
    read(&mut m, &v, &log, Bar::Bar2, 1 << 29);
    read(&mut m, &v, &log, Bar::Bar2, 1 << 38);
    read(&mut m, &v, &log, Bar::Bar1, 0);
    read(&mut m, &v, &log, Bar::Bar2, 1 << 49);
    let text = mem.contents();
    assert_eq!(
        text.matches("BAR2 read at 0x0 refused").count(),
        1,
        "{text}"
    );
    assert_eq!(m.tally().faults, 8);
    for want in [
        "BAR2 write at 0x0 refused (an MMU fault): a write through a read-only PTE",
        "BAR2 read at 0x0 refused (an MMU fault): its page 0x200000 is inside WPR2",
        "at 0x1000 refused (an MMU fault): the small PTE (0x0000000000020005) names system memory",
        "at 0x2000 refused (an MMU fault): the small PTE (0x0000000000020003) names a peer",
        "at 0x20000000 refused (an MMU fault): PD0 at 0x400000000: 8 bytes at 0x400000000 reach past the end",
        "at 0x4000000000 refused (an MMU fault): PD2 entry 1 is not valid",
        "BAR1 read at 0x0 refused (an MMU fault): BAR1 has no page directory",
        "is past the format's 49 bits",
    ] {
        assert!(text.contains(want), "{want} not in {text}");
    }
}

#[test]
fn sparse_directories_compressed_ptes_and_a_full_tlb_are_served() {
    let (mut m, mut v, log, mem) = setup();
    // PD1 entry 1 sparse: reads 0, no fault.
    v.write_u64(PD1 + 8, VOL).unwrap();
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 1 << 29), 0);
    // A compressed kind's PTE: COMPTAGLINE beside the address.
    v.write_u64(SPT, pte(0x20_0000) | (0x1234 << 36) | (0xc0 << 56))
        .unwrap();
    v.write(0x20_0000, &[0x66; 4]).unwrap();
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 0), 0x6666_6666);
    assert!(!mem.contents().contains("refused"), "{}", mem.contents());
    // More pages than the TLB holds (PD0 entries 1 to 255 as 2 MiB pages: 130560 pages of
    // 4 KiB): it forgets them all when full, and translates again.
    v.write(0x80_0000, &[0x77; 4]).unwrap();
    for e in 1..256 {
        v.write_u64(PD0 + e * 16, pte(0x80_0000)).unwrap();
    }
    for p in (1 << 21) / PAGE..(256 << 21) / PAGE {
        read(&mut m, &v, &log, Bar::Bar2, p * PAGE);
        assert!(m.tlb.len() <= TLB_ENTRIES);
    }
    let translated = m.tally().translated;
    assert_eq!(read(&mut m, &v, &log, Bar::Bar2, 1 << 21), 0x7777_7777);
    assert_eq!(m.tally().translated, translated + 1);
    assert!(
        m.tlb.len() < TLB_ENTRIES,
        "cleared once full: {}",
        m.tlb.len()
    );
    assert!(!mem.contents().contains("refused"), "{}", mem.contents());
}
