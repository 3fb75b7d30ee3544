// SPDX-License-Identifier: GPL-2.0

//! Interrupt delivery: MSI once per arm, re-armed as each family re-arms it; INTx automasked
//! and triggered again on unmask while the level holds; the resample eventfd; resets, the
//! interrupt table's vector and the counts.

use std::io::ErrorKind;

use super::*;
use crate::device::tests::{device_of, eventfd, read32, write32};
use crate::falcon::IRQ_SWGEN0;
use crate::logger::MemoryLog;

const BAR0: u32 = VFIO_PCI_BAR0_REGION_INDEX;
const CONFIG: u32 = VFIO_PCI_CONFIG_REGION_INDEX;
const TRIGGER: u32 = VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER;

/// The GSP's stall vector in the model's table, 192: leaf 6, bit 0, subtree 3.
const GSP_LEAF: u64 = 0xb81000 + 6 * 4;
const GSP_LEAF_EN_SET: u64 = 0xb81200 + 6 * 4;
const TOP: u64 = 0xb81600;
const TOP_EN_SET: u64 = 0xb81608;
const TOP_EN_CLEAR: u64 = 0xb81610;
const MSI_REARM: u64 = 0x088704;
const IRQSCLR: u64 = crate::falcon::GSP_BASE + 0x004;
const IRQSTAT: u64 = crate::falcon::GSP_BASE + 0x008;
const INTR_RETRIGGER: u64 = crate::falcon::GSP_BASE + 0x3e8;

/// Memory decoding and bus mastering on, as the driver sets them.
const COMMAND: u32 = 0x6;

/// A device of `chip` with bus mastering on and the GSP's interrupt enabled in the tree as
/// nouveau enables it (its leaf bit, every subtree), `index`'s trigger eventfd set; with the
/// eventfd's other end.
fn wired(chip: &str, index: u32) -> (Device, File, MemoryLog) {
    let (mut dev, text) = device_of(chip, None);
    write32(&mut dev, CONFIG, 4, COMMAND);
    write32(&mut dev, BAR0, GSP_LEAF_EN_SET, 1);
    write32(&mut dev, BAR0, TOP_EN_SET, 0xf);
    let fd = eventfd();
    let other = fd.try_clone().expect("dup");
    dev.set_irqs(index, TRIGGER, 0, 1, vec![fd])
        .expect("trigger eventfd");
    (dev, other, text)
}

/// SWGEN0 raised and routed on the GSP's falcon, as GSP-RM, up, raises it after a message it
/// posted (the GSP model's tests have GSP-RM raise it), and the line re-evaluated as after the
/// GSP's tick.
fn swgen0(dev: &mut Device) {
    let e = dev.engines.as_mut().expect("the GSP's falcon");
    e.gsp.route_swgen0();
    e.gsp.raise_swgen0();
    dev.update_irq();
}

/// The driver's handler: SWGEN0 cleared, then the leaf bit.
fn handle(dev: &mut Device) {
    write32(dev, BAR0, IRQSCLR, IRQ_SWGEN0);
    write32(dev, BAR0, GSP_LEAF, 1);
}

/// How often the eventfd was signalled since the last look.
fn signals(fd: &File) -> u64 {
    let mut buf = [0u8; 8];
    let mut reader: &File = fd;
    match reader.read_exact(&mut buf) {
        Ok(()) => u64::from_ne_bytes(buf),
        Err(e) if e.kind() == ErrorKind::WouldBlock => 0,
        Err(e) => panic!("eventfd: {e}"),
    }
}

#[test]
fn msi_goes_once_per_arm_and_the_config_mirror_rearms_it() {
    let (mut dev, msi, text) = wired("ga102", VFIO_PCI_MSI_IRQ_INDEX);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
    assert_eq!(read32(&mut dev, BAR0, TOP), 1 << 3);
    // Handled, then raised again: not armed, nothing sent.
    handle(&mut dev);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 0);
    // nouveau's gp100_pci_msi_rearm: the level is still high, the next MSI goes at once.
    write32(&mut dev, BAR0, MSI_REARM, 0);
    assert_eq!(signals(&msi), 1);
    // Re-armed while the level is low: the next goes when it rises.
    handle(&mut dev);
    write32(&mut dev, BAR0, MSI_REARM, 0);
    assert_eq!(signals(&msi), 0);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
    assert_eq!(dev.counts().interrupts(0).msi, 3);
    assert_eq!(dev.counts().interrupts(0).intx, 0);
    let t = text.contents();
    assert_eq!(
        t.matches("MSI: first interrupt delivered (phase 0)")
            .count(),
        1,
        "{t}"
    );
    assert!(!t.contains("NV_XVE_CYA_2"), "served, not ignored: {t}");
}

#[test]
fn msi_waits_for_bus_mastering() {
    let (mut dev, msi, _) = wired("ga102", VFIO_PCI_MSI_IRQ_INDEX);
    write32(&mut dev, CONFIG, 4, 0x2);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 0, "an MSI is a memory write");
    write32(&mut dev, CONFIG, 4, COMMAND);
    assert_eq!(signals(&msi), 1);
}

#[test]
fn msi_stops_with_its_trigger_eventfd_and_intx_takes_over() {
    let (mut dev, msi, _) = wired("ga102", VFIO_PCI_MSI_IRQ_INDEX);
    let intx = eventfd();
    let intx_other = intx.try_clone().expect("dup");
    dev.set_irqs(VFIO_PCI_INTX_IRQ_INDEX, TRIGGER, 0, 1, vec![intx])
        .expect("INTx");
    swgen0(&mut dev);
    assert_eq!((signals(&msi), signals(&intx_other)), (1, 0), "MSI wins");
    // QEMU's vfio_msi_disable: MSI without eventfds, INTx on.
    dev.set_irqs(
        VFIO_PCI_MSI_IRQ_INDEX,
        VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
        0,
        0,
        vec![],
    )
    .expect("MSI off");
    assert_eq!((signals(&msi), signals(&intx_other)), (0, 1));
}

#[test]
fn hopper_rearms_msi_with_the_top_enable_not_the_config_mirror() {
    let (mut dev, msi, text) = wired("gh100", VFIO_PCI_MSI_IRQ_INDEX);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
    handle(&mut dev);
    swgen0(&mut dev);
    write32(&mut dev, BAR0, MSI_REARM, 0);
    assert_eq!(signals(&msi), 0, "no NV_PCFG on Hopper");
    assert!(
        text.contents()
            .contains("NV_XVE_CYA_2 through the PCI config mirror"),
        "refused by name: {}",
        text.contents()
    );
    // nouveau's hard handler: unarm, then rearm, the top-level ack.
    write32(&mut dev, BAR0, TOP_EN_CLEAR, 0xff);
    assert_eq!(signals(&msi), 0);
    write32(&mut dev, BAR0, TOP_EN_SET, 0xff);
    assert_eq!(signals(&msi), 1);
}

#[test]
fn intx_masks_itself_and_triggers_again_on_unmask_while_the_level_holds() {
    let (mut dev, intx, text) = wired("ga102", VFIO_PCI_INTX_IRQ_INDEX);
    let unmask = VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK;
    swgen0(&mut dev);
    assert_eq!(signals(&intx), 1);
    // Automasked: nothing more until the client unmasks it.
    swgen0(&mut dev);
    write32(&mut dev, BAR0, MSI_REARM, 0);
    assert_eq!(signals(&intx), 0);
    // QEMU's EOI under TCG, the level still high: at once again.
    dev.set_irqs(VFIO_PCI_INTX_IRQ_INDEX, unmask, 0, 1, vec![])
        .expect("unmask");
    assert_eq!(signals(&intx), 1);
    // Handled, then unmasked: the level is low, nothing.
    handle(&mut dev);
    dev.set_irqs(VFIO_PCI_INTX_IRQ_INDEX, unmask, 0, 1, vec![])
        .expect("unmask");
    assert_eq!(signals(&intx), 0);
    swgen0(&mut dev);
    assert_eq!(signals(&intx), 1);
    assert_eq!(dev.counts().interrupts(0).intx, 3);
    assert_eq!(dev.counts().interrupts(0).msi, 0);
    assert!(text
        .contents()
        .contains("INTx: first interrupt delivered (phase 0)"));
}

#[test]
fn intx_disable_holds_intx_back() {
    let (mut dev, intx, _) = wired("ga102", VFIO_PCI_INTX_IRQ_INDEX);
    write32(&mut dev, CONFIG, 4, COMMAND | 0x400);
    swgen0(&mut dev);
    assert_eq!(signals(&intx), 0);
    write32(&mut dev, CONFIG, 4, COMMAND);
    assert_eq!(signals(&intx), 1);
}

#[test]
fn the_resample_eventfd_unmasks_intx_at_the_gsp_tick() {
    let (mut dev, intx, text) = wired("ga102", VFIO_PCI_INTX_IRQ_INDEX);
    let resample = eventfd();
    let mut guest_eoi = resample.try_clone().expect("dup");
    dev.set_irqs(
        VFIO_PCI_INTX_IRQ_INDEX,
        VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_UNMASK,
        0,
        1,
        vec![resample],
    )
    .expect("resample eventfd");
    assert!(text.contents().contains("INTx: resample eventfd kept"));
    swgen0(&mut dev);
    assert_eq!(signals(&intx), 1);
    assert!(
        dev.run_gsp(),
        "the GSP thread ticks to read the resample eventfd"
    );
    assert_eq!(signals(&intx), 0, "masked until the guest's EOI");
    // KVM signals it at the guest's EOI; the level still high: again at the next tick.
    signal_eventfd(&mut guest_eoi).expect("EOI");
    dev.run_gsp();
    assert_eq!(signals(&intx), 1);
    // Handled and EOI'd: nothing more.
    handle(&mut dev);
    signal_eventfd(&mut guest_eoi).expect("EOI");
    assert!(!dev.run_gsp(), "unmasked: nothing to wait for");
    assert_eq!(signals(&intx), 0);
    // INTx disabled takes its resample eventfd with it: nothing to wait for.
    swgen0(&mut dev);
    assert_eq!(signals(&intx), 1);
    dev.set_irqs(
        VFIO_PCI_INTX_IRQ_INDEX,
        VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
        0,
        0,
        vec![],
    )
    .expect("INTx off");
    assert!(!dev.run_gsp());
}

#[test]
fn a_trigger_eventfd_set_for_intx_starts_unmasked() {
    let (mut dev, intx, _) = wired("ga102", VFIO_PCI_INTX_IRQ_INDEX);
    swgen0(&mut dev);
    assert_eq!(signals(&intx), 1);
    // QEMU enables INTx anew (vfio_intx_enable, after a reset or MSI's disable): a new line,
    // unmasked, which the level still high triggers at once.
    let fd = eventfd();
    let again = fd.try_clone().expect("dup");
    dev.set_irqs(VFIO_PCI_INTX_IRQ_INDEX, TRIGGER, 0, 1, vec![fd])
        .expect("INTx again");
    assert_eq!((signals(&intx), signals(&again)), (0, 1));
}

#[test]
fn a_reset_clears_the_tree_and_the_falcons_interrupts_and_arms_msi() {
    let (mut dev, msi, _) = wired("ga102", VFIO_PCI_MSI_IRQ_INDEX);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
    dev.reset();
    assert_eq!(read32(&mut dev, BAR0, GSP_LEAF), 0);
    assert_eq!(read32(&mut dev, BAR0, GSP_LEAF_EN_SET), 0);
    assert_eq!(read32(&mut dev, BAR0, TOP_EN_SET), 0);
    assert_eq!(read32(&mut dev, BAR0, IRQSTAT), 0);
    // Enabled again by the driver: armed without a re-arm.
    write32(&mut dev, CONFIG, 4, COMMAND);
    write32(&mut dev, BAR0, GSP_LEAF_EN_SET, 1);
    write32(&mut dev, BAR0, TOP_EN_SET, 0xf);
    assert_eq!(signals(&msi), 0);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
}

#[test]
fn the_slots_power_cut_takes_the_pending_interrupt_with_it() {
    let (mut dev, intx, _) = wired("ga102", VFIO_PCI_INTX_IRQ_INDEX);
    let e = dev.engines.as_mut().expect("falcon");
    e.gsp.route_swgen0();
    e.gsp.raise_swgen0();
    let phase = dev.phase_offset();
    write32(&mut dev, BAR0, phase, 9 | crate::device::PHASE_POWER_OFF);
    assert_eq!(signals(&intx), 0);
    assert_eq!(read32(&mut dev, BAR0, IRQSTAT), 0);
    assert_eq!(read32(&mut dev, BAR0, GSP_LEAF), 0);
    assert_eq!(dev.counts().interrupts(9).intx, 0);
}

#[test]
fn a_driver_that_ignores_the_interrupt_table_gets_no_interrupt() {
    let (mut dev, text) = device_of("ga102", None);
    write32(&mut dev, CONFIG, 4, COMMAND);
    // Vector 0, the table's vector before it moved to 192.
    write32(&mut dev, BAR0, 0xb81200, 1);
    write32(&mut dev, BAR0, TOP_EN_SET, 0xf);
    let fd = eventfd();
    let msi = fd.try_clone().expect("dup");
    dev.set_irqs(VFIO_PCI_MSI_IRQ_INDEX, TRIGGER, 0, 1, vec![fd])
        .expect("MSI");
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 0);
    assert_eq!(
        read32(&mut dev, BAR0, GSP_LEAF),
        1,
        "pending where the table says"
    );
    assert!(
        !text.contents().contains("unmodelled"),
        "{}",
        text.contents()
    );
}

#[test]
fn ga100_on_retrigger_the_leaf_and_turing_holds_it_while_swgen0_is_pending() {
    for chip in ["ga100", "ga102", "gh100"] {
        let (mut dev, msi, _) = wired(chip, VFIO_PCI_MSI_IRQ_INDEX);
        swgen0(&mut dev);
        assert_eq!(signals(&msi), 1, "{chip}");
        // The leaf cleared before SWGEN0 (nouveau's order): cleared.
        write32(&mut dev, BAR0, GSP_LEAF, 1);
        assert_eq!(read32(&mut dev, BAR0, GSP_LEAF), 0, "{chip}");
        write32(&mut dev, BAR0, INTR_RETRIGGER, 1);
        assert_eq!(
            read32(&mut dev, BAR0, GSP_LEAF),
            1,
            "{chip}: SWGEN0 still pending"
        );
    }
    let (mut dev, msi, text) = wired("tu102", VFIO_PCI_MSI_IRQ_INDEX);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
    write32(&mut dev, BAR0, GSP_LEAF, 1);
    assert_eq!(
        read32(&mut dev, BAR0, GSP_LEAF),
        1,
        "a level while SWGEN0 is pending"
    );
    write32(&mut dev, BAR0, IRQSCLR, IRQ_SWGEN0);
    write32(&mut dev, BAR0, GSP_LEAF, 1);
    assert_eq!(read32(&mut dev, BAR0, GSP_LEAF), 0);
    // TU10x has no INTR_RETRIGGER.
    write32(&mut dev, BAR0, INTR_RETRIGGER, 1);
    assert!(text
        .contents()
        .contains("unmodelled write of 0x00000001 to BAR0+0x1103e8"));
}

#[test]
fn the_counts_file_has_each_phases_interrupts() {
    let (mut dev, msi, _) = wired("ga102", VFIO_PCI_MSI_IRQ_INDEX);
    let phase = dev.phase_offset();
    write32(&mut dev, BAR0, phase, 3);
    swgen0(&mut dev);
    assert_eq!(signals(&msi), 1);
    write32(&mut dev, BAR0, phase, 4);
    let json: serde_json::Value =
        serde_json::from_str(&dev.counts_json().expect("json")).expect("parse");
    let interrupts: Vec<(u64, serde_json::Value)> = json["phases"]
        .as_array()
        .expect("phases")
        .iter()
        .map(|p| (p["phase"].as_u64().expect("phase"), p["interrupts"].clone()))
        .collect();
    assert_eq!(
        interrupts,
        [
            (0, serde_json::json!({ "msi": 0, "intx": 0 })),
            (3, serde_json::json!({ "msi": 1, "intx": 0 })),
            (4, serde_json::json!({ "msi": 0, "intx": 0 })),
        ]
    );
}
