// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's BARs end to end, through the device as a driver reaches it: the roots in the
//! static information, page tables written through the PRAMIN window, `UPDATE_BAR_PDE`, BAR2
//! (PCI BAR3) reads and writes translated through them, the TLB invalidate, the teardown; and
//! the BARs' and the window's faults, reset and power-off.

use vfio_bindings::bindings::vfio::{VFIO_PCI_BAR0_REGION_INDEX, VFIO_PCI_BAR3_REGION_INDEX};

use super::bar::{update_bar_pde, Roots};
use super::tests::{boot, Driver};
use super::wire::*;
use crate::device::tests::{read32, write32};
use crate::mmu::{
    NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE, NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB,
};
use crate::pramin::NV_PBUS_BAR0_WINDOW;

const BAR0: u32 = VFIO_PCI_BAR0_REGION_INDEX;
const BAR2: u32 = VFIO_PCI_BAR3_REGION_INDEX;

/// Where the test's WPR2 starts (a 24 GiB FB), and nouveau's tables below the usable end.
const WPR2: u64 = 0x5_f500_0000;
const PD2: u64 = 0x1000_0000;
const PD1: u64 = PD2 + 0x1000;
const PD0: u64 = PD2 + 0x2000;
const SPT: u64 = PD2 + 0x3000;
const PAGE_A: u64 = PD2 + 0x10_0000;
const PAGE_B: u64 = PD2 + 0x20_0000;

/// Writes `value` into video memory through the PRAMIN window.
fn pramin_write64(d: &mut Driver, addr: u64, value: u64) {
    write32(&mut d.dev, BAR0, NV_PBUS_BAR0_WINDOW, (addr >> 16) as u32);
    let at = 0x70_0000 + (addr & 0xffff);
    write32(&mut d.dev, BAR0, at, value as u32);
    write32(&mut d.dev, BAR0, at + 4, (value >> 32) as u32);
}

fn pde(addr: u64) -> u64 {
    (addr >> 4) | 2
}

fn update_bar_pde(d: &mut Driver, value: u64) -> u32 {
    let mut r = vec![0; update_bar_pde::SIZE];
    put_u32(&mut r, update_bar_pde::BAR_TYPE, 1);
    put_u64(&mut r, update_bar_pde::ENTRY_VALUE, value);
    put_u64(&mut r, update_bar_pde::ENTRY_LEVEL_SHIFT, 47);
    d.send(function::UPDATE_BAR_PDE, &r);
    let msgs = d.receive();
    assert_eq!(msgs.len(), 1, "{}", d.log());
    assert_eq!(msgs[0].function, function::UPDATE_BAR_PDE);
    msgs[0].result
}

fn invalidate(d: &mut Driver, pdb: u64) {
    write32(
        &mut d.dev,
        BAR0,
        NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE_PDB,
        (pdb >> 8) as u32,
    );
    write32(
        &mut d.dev,
        BAR0,
        NV_VIRTUAL_FUNCTION_PRIV_MMU_INVALIDATE,
        0x8000_0001,
    );
}

#[test]
fn nouveaus_bar2_set_up_runs_through_the_model_and_comes_down() {
    let mut d = Driver::new(Version::R570_144, None);
    d.dev.set_wpr2(WPR2..WPR2 + 0x10_0000);
    // Before GSP-RM, BAR2 has no root: a fault by name.
    assert_eq!(read32(&mut d.dev, BAR2, 0x40), 0);
    assert!(d
        .log()
        .contains("BAR2 read at 0x40 refused (an MMU fault): BAR2 has no page directory"));
    boot(&mut d);
    let roots = Roots::of(WPR2).expect("room below WPR2");
    d.send_static_info();
    let info = &d.receive()[0].payload;
    let at = Version::R570_144.static_info_bar_pde_base_offset();
    assert_eq!(
        (get_u64(info, at), get_u64(info, at + 8)),
        (roots.bar1, roots.bar2)
    );
    // nouveau's tables, through the window: VA 0 maps PAGE_A.
    pramin_write64(&mut d, PD2, pde(PD1));
    pramin_write64(&mut d, PD1, pde(PD0));
    pramin_write64(&mut d, PD0 + 8, pde(SPT));
    pramin_write64(&mut d, SPT, (PAGE_A >> 4) | 1);
    pramin_write64(&mut d, PAGE_A, 0x1111_1111);
    pramin_write64(&mut d, PAGE_B, 0x2222_2222);
    assert_eq!(update_bar_pde(&mut d, pde(PD2)), 0, "{}", d.log());
    assert_eq!(read32(&mut d.dev, BAR2, 0), 0x1111_1111, "{}", d.log());
    write32(&mut d.dev, BAR2, 4, 0x3333_3333);
    // Moved without an invalidate, the TLB still leads to PAGE_A; invalidated, to PAGE_B.
    pramin_write64(&mut d, SPT, (PAGE_B >> 4) | 1);
    assert_eq!(read32(&mut d.dev, BAR2, 4), 0x3333_3333);
    invalidate(&mut d, roots.bar2);
    assert_eq!(read32(&mut d.dev, BAR2, 0), 0x2222_2222);
    // Taken down: BAR2 faults again.
    assert_eq!(update_bar_pde(&mut d, 0), 0);
    assert_eq!(read32(&mut d.dev, BAR2, 0x1008), 0);
    let log = d.log();
    assert!(log.contains("UPDATE_BAR_PDE: BAR2 root"), "{log}");
    assert!(
        log.contains("BAR2 read at 0x1008 refused (an MMU fault): PD3 entry 0 is not valid"),
        "{log}"
    );
    assert!(!log.contains("PRAMIN"), "{log}");
}

#[test]
fn a_refused_update_changes_nothing_and_wpr2_is_out_of_reach() {
    let mut d = Driver::new(Version::R535_113_01, None);
    d.dev.set_wpr2(WPR2..WPR2 + 0x10_0000);
    boot(&mut d);
    // A directory inside GSP-RM's own memory: refused, the root untouched.
    let roots = Roots::of(WPR2).expect("room below WPR2");
    assert_eq!(update_bar_pde(&mut d, pde(roots.bar1)), 0x1f);
    assert!(
        d.log().contains("UPDATE_BAR_PDE refused: entryValue"),
        "{}",
        d.log()
    );
    // The window onto WPR2 is refused.
    pramin_write64(&mut d, WPR2 + 0x100, 5);
    assert!(d.log().contains("is inside WPR2"), "{}", d.log());
}
