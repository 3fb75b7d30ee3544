// SPDX-License-Identifier: GPL-2.0

//! The FSP chain's validators on the host: the COT message's layout per family, every field of
//! the FSP's reply, the queue pointers, GSP-FMC's lockdown and the framebuffer sizes.

use nova_core_parse::check_fsp as check;

fn reply(words: [u32; 5]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

const GOOD: [u32; 5] = [0xc000_0000, 0x1510_de7e, 3, 0x14, 0];

#[test]
fn the_reply_is_accepted_only_whole_and_error_free() {
    assert_eq!(check::cot_reply(&reply(GOOD)), Ok(()));
    let bad = |i: usize, v: u32| {
        let mut w = GOOD;
        w[i] = v;
        check::cot_reply(&reply(w)).unwrap_err()
    };
    assert!(
        bad(0, 0x4000_0000).contains("not a single packet"),
        "{}",
        bad(0, 0x4000_0000)
    );
    assert!(bad(1, 0x1410_de7e).contains("not a response"));
    assert!(bad(3, 0x13).contains("reply to NVDM type 0x13"));
    assert_eq!(bad(4, 0x2f), "FSP error code 0x2f");
    // A code OpenRM names (`kern_fsp_retval.h`) is told by its name as well.
    assert_eq!(
        bad(4, 0x9e),
        "FSP error code 0x9e (FSP_ERR_IFS_ERR_INVALID_STATE)"
    );
    assert_eq!(
        bad(4, 0x1e3),
        "FSP error code 0x1e3 (FSP_ERR_PRC_ERROR_INVALID_KNOB_ID)"
    );
    assert_eq!(bad(4, 0x1e2), "FSP error code 0x1e2");
    assert_eq!(
        check::cot_reply(&reply(GOOD)[..12]).unwrap_err(),
        "reply of 12 bytes, not 20"
    );
}

#[test]
fn queue_pointers_say_where_a_reply_is() {
    assert_eq!(check::queue_pointers(0, 16), Ok(20));
    assert_eq!(check::queue_pointers(0, 0).unwrap_err(), "no reply");
    for (h, t) in [(16, 0), (0, 0x1000), (0, 17), (2, 18)] {
        assert!(
            check::queue_pointers(h, t)
                .unwrap_err()
                .contains("not a reply"),
            "{h} {t}"
        );
    }
}

#[test]
fn lockdown_reads_as_the_sources_say() {
    const BP: u64 = 0x2_0000_1000;
    assert_eq!(check::lockdown(0xbadf_4100, 0, 0, BP), "Locked");
    assert_eq!(check::lockdown(0x2000, 0x1000, 2, BP), "Booting");
    assert_eq!(check::lockdown(0x2000, 0, 0, BP), "Booting");
    assert_eq!(check::lockdown(0x80, 0, 0, BP), "Released");
    assert_eq!(check::lockdown(0x80, 0xb1, 0, BP), "failed 0xb1");
}

#[test]
fn the_cot_message_carries_the_family_version_and_padded_material() {
    let gh = check::cot_message("gh100", 384, 384).unwrap();
    let gb = check::cot_message("gb202", 97, 96).unwrap();
    assert_eq!((gh.len(), gb.len()), (868, 868));
    assert_eq!((gh[8], gb[8]), (1, 2));
    assert_eq!(&gb[10..12], &860u16.to_le_bytes());
    assert_eq!(gb[8 + 84 + 96], 0x22);
    assert_eq!(gb[8 + 84 + 97], 0);
    assert_eq!(&gb[860..868], &0x6789_a000u64.to_le_bytes());
    assert!(check::cot_message("gb100", 385, 96)
        .unwrap_err()
        .contains("public key of 385"));
    assert!(check::cot_message("ga102", 97, 96).is_err());
}

#[test]
fn fmc_sizes_follow_the_family() {
    let gh = check::fmc_sizes("gh100", 80 << 10).unwrap();
    assert_eq!(gh.frts_offset, 2 << 20);
    assert_eq!((gh.non_wpr_heap, gh.pmu_reserved), (2 << 20, 0));
    let gb10 = check::fmc_sizes("gb100", 180 << 10).unwrap();
    assert_eq!(gb10.frts_offset, 0x1c0_0000);
    assert_eq!(
        (gb10.non_wpr_heap, gb10.pmu_reserved),
        (2 << 20, 0x182_0000)
    );
    let gb20 = check::fmc_sizes("gb202", 32 << 10).unwrap();
    assert_eq!(gb20.frts_offset, 0x1c0_0000);
    assert_eq!(gb20.non_wpr_heap, (2 << 20) + (128 << 10));
    // LIBOS 3 (22 MiB) + GH100's base RM (14 MiB) + 96 MiB of client allocations + 96 KiB
    // per GiB of video memory, in whole MiB: 32 GiB gives 3 MiB.
    assert_eq!(gb20.heap, (22 + 14 + 96 + 3) << 20);
    assert!(check::fmc_sizes("gh100", 0)
        .unwrap_err()
        .contains("no video memory"));
    assert!(check::fmc_sizes("gh100", u32::MAX)
        .unwrap_err()
        .contains("more than any board"));
    assert!(check::fmc_sizes("gh100", 64)
        .unwrap_err()
        .contains("no room for the GSP-FMC"));
}

fn real_fmc(chip: &str) -> Option<Vec<u8>> {
    let root = std::env::var("NOVA_FW_ROOT").unwrap_or_else(|_| "/usr/lib/firmware".into());
    let dir = std::path::PathBuf::from(root).join("nvidia");
    if !dir.is_dir() {
        eprintln!("skipped: {} absent", dir.display());
        return None;
    }
    let path = dir.join(chip).join("gsp").join("fmc-570.144.bin");
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

const FSP_CHIPS: [&str; 8] = [
    "gh100", "gb100", "gb102", "gb202", "gb203", "gb205", "gb206", "gb207",
];

#[test]
fn every_real_fmc_file_is_valid_for_its_chip_and_no_other_family() {
    for chip in FSP_CHIPS {
        let Some(file) = real_fmc(chip) else { return };
        assert_eq!(
            nova_core_parse::check::firmware_file("fmc", "570.144", chip, &file),
            Ok(()),
            "{chip}"
        );
    }
    let (Some(gh100), Some(gb202)) = (real_fmc("gh100"), real_fmc("gb202")) else {
        return;
    };
    // Hopper's key is RSA-3K sized, Blackwell's is not: a file of the other family is refused.
    assert_eq!(
        nova_core_parse::check::firmware_file("fmc", "570.144", "gb100", &gh100),
        Err("section publickey has 384 bytes, not 97".into())
    );
    assert_eq!(
        nova_core_parse::check::firmware_file("fmc", "570.144", "gh100", &gb202),
        Err("section publickey has 97 bytes, not 384".into())
    );
}
