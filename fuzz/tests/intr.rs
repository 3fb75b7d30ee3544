// SPDX-License-Identifier: GPL-2.0

//! What the interrupt registers say when GSP-RM's interrupt comes (`intr/status.rs`): the
//! vector's place in the tree as nouveau and OpenRM compute it, pending only with both its top
//! and leaf bits, and nothing confirmed by a device reading all ones.

use nova_core_parse::check;

#[test]
fn a_vector_is_pending_only_with_its_top_and_leaf_bits() {
    // Vector 192: leaf 6 bit 0, subtree 3 (top bit 3).
    assert_eq!(check::intr_pending(192, 1 << 3, 1), Some(Ok(true)));
    assert_eq!(check::intr_pending(192, 1 << 3, 2), Some(Ok(false)));
    assert_eq!(check::intr_pending(192, 1 << 2, 1), Some(Ok(false)));
    assert_eq!(check::intr_pending(192, 0, 0), Some(Ok(false)));
    // Vector 101: leaf 3 bit 5, subtree 1.
    assert_eq!(check::intr_pending(101, 1 << 1, 1 << 5), Some(Ok(true)));
    assert_eq!(check::intr_pending(101, 1 << 1, 1 << 4), Some(Ok(false)));
    // Every vector of the tree: its own bits, and no others, say it is pending.
    for v in 0..256 {
        let (top, bit) = (1u32 << (v / 64), 1u32 << (v % 32));
        assert_eq!(check::intr_pending(v, top, bit), Some(Ok(true)), "{v}");
        assert_eq!(check::intr_pending(v, !top, bit), Some(Ok(false)), "{v}");
        assert_eq!(check::intr_pending(v, top, !bit), Some(Ok(false)), "{v}");
    }
    assert_eq!(check::intr_pending(256, u32::MAX, u32::MAX), None);
}

#[test]
fn a_device_reading_all_ones_has_nothing_pending_or_routed() {
    assert_eq!(check::intr_pending(192, u32::MAX, 1), Some(Err(())));
    assert_eq!(check::intr_pending(192, 1 << 3, u32::MAX), Some(Err(())));
    assert_eq!(check::gsp_routed(u32::MAX, 1 << 6), None);
    assert_eq!(check::gsp_routed(1 << 6, u32::MAX), None);
}

#[test]
fn the_falcon_routes_what_its_mask_lets_through() {
    // SWGEN0 (bit 6) and HALT (bit 4), as GSP-RM routes them.
    assert_eq!(
        check::gsp_routed(1 << 6, (1 << 6) | (1 << 4)),
        Some((true, 0))
    );
    assert_eq!(
        check::gsp_routed((1 << 6) | (1 << 4), (1 << 6) | (1 << 4)),
        Some((true, 1 << 4))
    );
    assert_eq!(check::gsp_routed(1 << 6, 1 << 4), Some((false, 0)));
    assert_eq!(check::gsp_routed(0xffff_fffe, 0), Some((false, 0)));
    assert_eq!(
        check::gsp_routed(0x0000_0f0f, 0xffff_fffe),
        Some((false, 0x0f0e))
    );
}
