// SPDX-License-Identifier: GPL-2.0

//! The small validators of the chain through the booter, on the host: the RISC-V bootloader
//! file (`firmware/riscv.rs`: every real file validates with NVIDIA's offsets; one mutation
//! per rejection is refused), a firmware's halt status, the signature fuse's version,
//! FWSEC-SB's outcome (`falcon/state.rs`, `fwsec/outcome.rs`) and a `REG_POLL`'s match
//! (`gsp/sequencer/poll.rs`).

use std::path::PathBuf;

use nova_core_parse::check;

fn fw_root() -> PathBuf {
    PathBuf::from(std::env::var("NOVA_FW_ROOT").unwrap_or_else(|_| "/usr/lib/firmware".into()))
}

const CHIPS: [&str; 16] = [
    "tu102", "tu104", "tu106", "tu116", "tu117", "ga100", "ga102", "ga103", "ga104", "ga106",
    "ga107", "ad102", "ad103", "ad104", "ad106", "ad107",
];

fn put(f: &mut [u8], at: usize, v: u32) {
    f[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A synthetic bootloader: header at 0, descriptor at 0x40, ucode of 0x100 bytes at 0x100
/// (monitor code at 0x10, data at 0x20, manifest at 0x30 of 0x10 bytes each, version 7).
fn synthetic() -> Vec<u8> {
    let mut f = vec![0u8; 0x200];
    for (at, v) in [(0, 0x10de), (12, 0x40), (16, 0x100), (20, 0x100)] {
        put(&mut f, at, v);
    }
    for (n, v) in [
        (7, 7),
        (8, 0x30),
        (9, 0x10),
        (10, 0x20),
        (11, 0x10),
        (12, 0x10),
        (13, 0x10),
    ] {
        put(&mut f, 0x40 + 4 * n, v);
    }
    f
}

#[test]
fn a_synthetic_bootloader_decodes_field_for_field() {
    assert_eq!(
        check::riscv_bootloader(&synthetic()),
        Ok((0x100, [0x10, 0x20, 0x30, 7]))
    );
}

#[test]
fn each_rejection_of_the_bootloader() {
    let cases: [(usize, u32, &str); 4] = [
        (0, 0x10df, "magic"),
        (20, 0x1000, "outside the file"),
        (0x40 + 4 * 12, 0xf8, "outside its ucode"),
        (0x40 + 4 * 8, 0x101, "outside its ucode"),
    ];
    for (at, v, want) in cases {
        let mut f = synthetic();
        put(&mut f, at, v);
        let got = check::riscv_bootloader(&f);
        assert!(
            got.as_ref().is_err_and(|e| e.contains(want)),
            "{at:#x} = {v:#x}: {got:?}, want {want:?}"
        );
    }
}

#[test]
fn a_descriptor_cut_by_the_file_end_is_refused() {
    // The descriptor at 0x18, the ucode right after the 16 bytes the binary header vouches
    // for, the file ending 40 bytes into the 56-byte descriptor.
    let mut f = vec![0u8; 0x40];
    for (at, v) in [(0, 0x10de), (12, 0x18), (16, 0x28), (20, 0x18)] {
        put(&mut f, at, v);
    }
    let got = check::riscv_bootloader(&f);
    assert!(
        got.as_ref()
            .is_err_and(|e| e.contains("ends inside the RISC-V descriptor")),
        "{got:?}"
    );
}

#[test]
fn package_every_real_bootloader_validates() {
    let dir = fw_root().join("nvidia");
    if !dir.is_dir() {
        eprintln!("skipped: {} absent", dir.display());
        return;
    }
    for chip in CHIPS {
        for version in ["535.113.01", "570.144"] {
            let path = dir
                .join(chip)
                .join("gsp")
                .join(format!("bootloader-{version}.bin"));
            let file = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let (len, [code, data, manifest, _]) = check::riscv_bootloader(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert!(len > 0 && code as usize <= len && data as usize <= len);
            assert!(manifest as usize <= len, "{}", path.display());
            // Truncations never panic.
            for cut in (0..file.len()).step_by(97) {
                let _ = check::riscv_bootloader(&file[..cut]);
            }
        }
    }
}

#[test]
fn only_zero_is_success() {
    assert_eq!(check::halt_status(0), Ok(()));
    assert_eq!(
        check::halt_status(1),
        Err("mailbox 0 = 0x00000001".to_string())
    );
    assert!(check::halt_status(u32::MAX).is_err());
}

#[test]
fn the_fuse_version_is_the_highest_bit() {
    assert_eq!(check::fuse_version(0), 0);
    assert_eq!(check::fuse_version(1), 1);
    assert_eq!(check::fuse_version(0b110), 3);
    assert_eq!(check::fuse_version(u32::MAX), 32);
}

#[test]
fn fwsec_sb_needs_a_clear_status_and_error_code() {
    // Its error code is scratch 0x15's low half, as nouveau reads it.
    assert_eq!(check::sb_outcome(0, 0xffff_0000), Ok(()));
    assert!(check::sb_outcome(4, 0)
        .unwrap_err()
        .contains("mailbox 0 = 0x00000004"));
    assert!(check::sb_outcome(0, 0x17)
        .unwrap_err()
        .contains("error code 0x0017"));
}

#[test]
fn a_poll_matches_its_masked_value() {
    assert_eq!(
        check::poll_match(0x5e90_0a01, u32::MAX, 0x5e90_0a01),
        Ok(())
    );
    assert_eq!(check::poll_match(0xff, 0x0f, 0x0f), Ok(()));
    assert_eq!(
        check::poll_match(0xf0, 0x0f, 0x0f),
        Err("the register reads 0x000000f0".to_string())
    );
}
