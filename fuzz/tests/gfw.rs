// SPDX-License-Identifier: GPL-2.0

//! GFW boot's validator (`devinit/gfw.rs`) over edge values of both registers: complete only
//! for a lowered mask and a progress of 0xff, never for a device reading all ones, and each
//! refusal names what the device answered.

use nova_core_parse::check;

#[test]
fn complete_only_when_lowered_and_0xff_and_never_for_all_ones() {
    let masks = [0, 1, 2, 3, 0x8000_0000, 0x8000_0001, 0xffff_fffe, u32::MAX];
    let progress = [
        0,
        1,
        0x42,
        0xfe,
        0xff,
        0x100,
        0x1ff,
        0xffff_ff00,
        0xffff_fffe,
        u32::MAX,
    ];
    let mut complete = 0;
    for &mask in &masks {
        for &boot in &progress {
            match check::gfw(mask, boot) {
                Ok(()) => complete += 1,
                Err(why) => assert!(!why.is_empty()),
            }
        }
    }
    // Lowered masks (bit 0: 1, 3, 0x8000_0001, all ones) with bits 7:0 at 0xff (0xff, 0x1ff,
    // all ones): 4 x 3, less all ones with all ones, which is a device gone.
    assert_eq!(complete, 4 * 3 - 1);
    assert!(check::gfw(u32::MAX, u32::MAX)
        .unwrap_err()
        .contains("gone from the bus"));
    assert!(check::gfw(0, 0xff)
        .unwrap_err()
        .contains("PRIV_LEVEL_MASK = 0x00000000"));
    assert!(check::gfw(1, 0x42).unwrap_err().contains("progress 0x42"));
}
