// SPDX-License-Identifier: GPL-2.0

//! The interrupt tree: its registers, the GSP's bit latched on its output's edge or held as a
//! level, the top level, and the MSI re-arm of each family.

use super::*;
use crate::chipset::find;

/// The GSP's vector in the model's table: leaf 6, bit 0, subtree 3.
const GSP_VECTOR: u32 = 192;
const GSP_LEAF: u64 = LEAF + 6 * 4;
const GSP_BIT: u32 = 1;
const GSP_SUBTREE: u32 = 1 << 3;

fn tree(chip: &str, retrigger: bool) -> Intr {
    Intr::new(find(chip).expect("chip"), GSP_VECTOR, retrigger)
}

/// The tree with the GSP's leaf bit and subtree enabled, as a driver sets them.
fn enabled(chip: &str, retrigger: bool) -> Intr {
    let mut t = tree(chip, retrigger);
    assert_eq!(t.write(LEAF_EN_SET + 6 * 4, GSP_BIT), Some(None));
    assert_eq!(t.write(TOP_EN_SET, GSP_SUBTREE), Some(None));
    t
}

#[test]
fn enable_registers_set_clear_and_read_back_the_enables() {
    let mut t = tree("ga102", true);
    t.write(LEAF_EN_SET + 4, 0xf0);
    t.write(LEAF_EN_CLEAR + 4, 0x30);
    assert_eq!(t.read(LEAF_EN_SET + 4), Some(0xc0));
    assert_eq!(t.read(LEAF_EN_CLEAR + 4), Some(0xc0));
    // nouveau's rearm and unarm write 0xf: the 4 subtrees of 8 leaves.
    t.write(TOP_EN_SET, 0xffff_ffff);
    assert_eq!(t.read(TOP_EN_SET), Some(0xf));
    t.write(TOP_EN_CLEAR, 0x5);
    assert_eq!(
        (t.read(TOP_EN_SET), t.read(TOP_EN_CLEAR)),
        (Some(0xa), Some(0xa))
    );
}

#[test]
fn the_gsp_bit_is_latched_on_the_rising_edge_and_a_write_of_1_clears_it() {
    let mut t = enabled("ga102", true);
    assert!(!t.level());
    t.set_gsp_output(true);
    assert_eq!(t.read(GSP_LEAF), Some(GSP_BIT));
    assert_eq!(t.read(TOP), Some(GSP_SUBTREE));
    assert!(t.level());
    // Cleared while the output is still high: an edge latched it, no edge came since.
    t.write(GSP_LEAF, GSP_BIT);
    t.set_gsp_output(true);
    assert_eq!(t.read(GSP_LEAF), Some(0));
    assert!(!t.level());
    // INTR_RETRIGGER latches it again while the output is high, not once it is low.
    t.retrigger();
    assert_eq!(t.read(GSP_LEAF), Some(GSP_BIT));
    t.write(GSP_LEAF, GSP_BIT);
    t.set_gsp_output(false);
    t.retrigger();
    assert_eq!(t.read(GSP_LEAF), Some(0));
    // The next rising edge.
    t.set_gsp_output(true);
    assert_eq!(t.read(GSP_LEAF), Some(GSP_BIT));
}

#[test]
fn without_retrigger_the_gsp_bit_follows_the_output() {
    let mut t = enabled("tu102", false);
    t.set_gsp_output(true);
    t.write(GSP_LEAF, GSP_BIT);
    assert_eq!(
        t.read(GSP_LEAF),
        Some(GSP_BIT),
        "a level: not cleared while high"
    );
    // The driver clears the source after the leaf (nouveau's order): no second interrupt.
    t.set_gsp_output(false);
    assert_eq!(t.read(GSP_LEAF), Some(0), "cleared with the output");
    assert!(!t.level());
    t.set_gsp_output(true);
    assert_eq!(t.read(GSP_LEAF), Some(GSP_BIT));
}

#[test]
fn the_level_needs_the_leaf_and_the_top_enable() {
    let mut t = tree("ga102", true);
    t.set_gsp_output(true);
    assert_eq!(t.read(GSP_LEAF), Some(GSP_BIT), "pending, not enabled");
    assert_eq!(t.read(TOP), Some(0));
    t.write(LEAF_EN_SET + 6 * 4, GSP_BIT);
    assert_eq!(t.read(TOP), Some(GSP_SUBTREE));
    assert!(!t.level(), "the subtree is not enabled");
    t.write(TOP_EN_SET, GSP_SUBTREE);
    assert!(t.level());
    t.write(TOP_EN_CLEAR, 0xf);
    assert!(!t.level());
    // A driver that took vector 0 for the GSP enables the wrong bit.
    let mut t = tree("ga102", true);
    t.write(LEAF_EN_SET, 1);
    t.write(TOP_EN_SET, 0xf);
    t.set_gsp_output(true);
    assert!(!t.level());
}

#[test]
fn turing_to_ada_have_8_leaves_and_rearm_msi_through_the_config_mirror() {
    for chip in ["tu102", "ga100", "ad102"] {
        let mut t = tree(chip, chip != "tu102");
        assert_eq!(t.read(LEAF + 7 * 4), Some(0), "{chip}");
        assert_eq!(t.read(LEAF + 8 * 4), None, "{chip}");
        assert_eq!(t.write(LEAF_EN_SET + 8 * 4, 1), None, "{chip}");
        assert_eq!(t.read(PCFG_XVE_CYA_2), Some(0), "{chip}");
        // nouveau writes 0; silicon looks at the offset only.
        assert_eq!(
            t.write(PCFG_XVE_CYA_2, 0),
            Some(Some(Effect::RearmMsi)),
            "{chip}"
        );
        assert_eq!(t.write(TOP_EN_SET, 0xf), Some(None), "{chip}");
    }
}

#[test]
fn hopper_and_blackwell_have_16_leaves_and_rearm_msi_with_the_top_enable() {
    for chip in ["gh100", "gb100", "gb202"] {
        let mut t = tree(chip, true);
        assert_eq!(t.read(LEAF + 15 * 4), Some(0), "{chip}");
        assert_eq!(t.read(LEAF + 16 * 4), None, "{chip}");
        assert_eq!(t.read(PCFG_XVE_CYA_2), None, "{chip}: no NV_PCFG");
        assert_eq!(t.write(PCFG_XVE_CYA_2, 0), None, "{chip}");
        assert_eq!(
            t.write(TOP_EN_SET, 0xffff),
            Some(Some(Effect::RearmMsi)),
            "{chip}"
        );
        assert_eq!(t.read(TOP_EN_SET), Some(0xff), "{chip}: 8 subtrees");
    }
}

#[test]
fn a_reset_clears_the_leaves_and_every_enable() {
    let mut t = enabled("ga102", true);
    t.set_gsp_output(true);
    t.reset();
    assert_eq!(t.read(GSP_LEAF), Some(0));
    assert_eq!(t.read(LEAF_EN_SET + 6 * 4), Some(0));
    assert_eq!(t.read(TOP_EN_SET), Some(0));
    // The output seen before the reset is forgotten: still high, it is a new edge.
    t.set_gsp_output(true);
    assert_eq!(t.read(GSP_LEAF), Some(GSP_BIT));
}
