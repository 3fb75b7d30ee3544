// SPDX-License-Identifier: GPL-2.0

//! FWSEC-FRTS's parsing core on the host: the image made from a validated VBIOS (`fwsec/
//! image.rs`: only the three patches differ from the ROM, each holding what it must), the
//! signature the fuse chooses, the generic bootloader file, what FWSEC-FRTS leaves behind
//! (`fwsec/outcome.rs`) and the falcon status conditions (`falcon/state.rs`).

use std::path::PathBuf;

use nova_core_parse::check;

/// The emulated GPU's VBIOS of `chip` (from `nova-emu --write-vbios`, in the folder the
/// harness fills).
fn emulated(chip: &str) -> Vec<u8> {
    let dir = std::env::var_os("NOVA_EMU_VBIOS_DIR")
        .map(PathBuf::from)
        .expect("NOVA_EMU_VBIOS_DIR: the folder of the emulated GPU's VBIOS files");
    let path = dir.join(format!("{chip}.rom"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A real dump, or `None` (said) where the folder is absent.
fn dump(name: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("NOVA_VBIOS_DIR").map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/vbios")),
        PathBuf::from,
    );
    if !dir.is_dir() {
        eprintln!("skipped: {} absent", dir.display());
        return None;
    }
    let path = dir.join(name);
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

const FRTS: u64 = 0x5_ffe0_0000;

/// The GSP's fuse of the emulated GPU: version 3 (bit 2).
const FUSE_V3: u32 = 0b100;

#[test]
#[ignore = "needs NOVA_EMU_VBIOS_DIR, which the harness fills"]
fn emulated_vbios_of_every_frts_chip_makes_its_image() {
    for chip in [
        "tu102", "tu104", "tu106", "tu116", "tu117", "ga102", "ga103", "ga104", "ga106", "ga107",
        "ad102", "ad103", "ad104", "ad106", "ad107",
    ] {
        let rom = emulated(chip);
        let (image, sig) =
            check::fwsec_image(&rom, FRTS, FUSE_V3).unwrap_or_else(|e| panic!("{chip}: {e}"));
        // IMEM 0x800 and DMEM 0x800 bytes; from GA102 on the third of three signatures
        // (versions 0, 1 and 3).
        assert_eq!(image.len(), 0x1000, "{chip}");
        let v3 = !chip.starts_with("tu");
        assert_eq!(sig, v3.then_some(2), "{chip}");
        if v3 {
            // A fuse version without a signature is refused by name.
            let e = check::fwsec_image(&rom, FRTS, 0b10).unwrap_err();
            assert!(
                e.starts_with("no FWSEC signature for fuse version 2"),
                "{e}"
            );
        }
    }
}

#[test]
fn real_dumps_make_their_images() {
    let Some(tu106) = dump("tu106-spaceinvader-rtx2070.rom") else {
        return;
    };
    // The window of a chip other than GA100 starts at the ROM; the validator reads the IFR
    // header of the flash as GA100 shows it, which is the same ucode.
    let (image, sig) = check::fwsec_image(&tu106, FRTS, 0).unwrap();
    assert_eq!((image.len(), sig), (0x9600 + 0x410, None));
    let ga104 = dump("ga104-bl4dee-razer-rtx3080m.rom").unwrap();
    let facts = check::vbios(&ga104).unwrap();
    assert_eq!(facts.signatures.2, 3);
    // Every fuse version the descriptor has a signature for picks a different one.
    let mut picked = Vec::new();
    for version in 0..16 {
        if let Ok((image, Some(sig))) = check::fwsec_image(&ga104, FRTS, (1 << version) >> 1) {
            assert_eq!(image.len(), 0xe200 + 0x800);
            picked.push(sig);
        }
    }
    assert_eq!(picked, [0, 1, 2]);
    // IMEM placed where it would run past the falcon's 64 KiB (the v3 descriptor's IMEM
    // physical base, its fifth word): refused by name, not loaded.
    let mut far = ga104.clone();
    let base = facts.desc.0 + 16;
    far[base..base + 4].copy_from_slice(&0xff00u32.to_le_bytes());
    let e = check::fwsec_image(&far, FRTS, 1).unwrap_err();
    assert_eq!(
        e,
        "FWSEC IMEM of 0xe200 bytes at 0xff00 goes past the falcon's 64 KiB"
    );
}

#[test]
fn the_signature_is_the_rank_of_the_fuse_version_among_the_descriptors() {
    // Versions 0, 1 and 3 present: fuse 0 (no bit) is version 0, the first signature.
    assert_eq!(check::signature_choice(0, 0b1011, 3), Ok((0, 0)));
    assert_eq!(check::signature_choice(0b1, 0b1011, 3), Ok((1, 1)));
    assert_eq!(check::signature_choice(0b100, 0b1011, 3), Ok((3, 2)));
    // Only the low 16 bits count; the highest set bit decides.
    assert_eq!(
        check::signature_choice(0xffff_0101, 0b10_0000_1011, 4),
        Ok((9, 3))
    );
    assert!(check::signature_choice(0b10, 0b1011, 3)
        .unwrap_err()
        .contains("fuse version 2"));
    // A version bit past the signatures the descriptor has.
    assert!(check::signature_choice(0b100, 0b1011, 2).is_err());
    for fuse in [0, 1, 0x8000, 0xffff, u32::MAX] {
        for versions in [0, 1, 0xffff, 0x8001] {
            let _ = check::signature_choice(fuse, versions, 16);
        }
    }
}

/// A generic bootloader file made here: the binary header (magic, version, size, descriptor
/// at 0x18, data at 0x30 of `code.len()` bytes) and the descriptor (start tag, DMEM load
/// offset, code offset 0, code size).
fn gen_bootloader_file(start_tag: u32, code: &[u8]) -> Vec<u8> {
    let mut f = vec![0u8; 0x30];
    let len = code.len() as u32;
    for (at, v) in [
        (0, 0x10de),
        (4, 1),
        (8, 0x30 + len),
        (12, 0x18),
        (16, 0x30),
        (20, len),
    ] {
        f[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }
    f[0x18..0x1c].copy_from_slice(&start_tag.to_le_bytes());
    f[0x24..0x28].copy_from_slice(&len.to_le_bytes());
    f.extend_from_slice(code);
    f
}

#[test]
fn a_generic_bootloader_made_here() {
    // 0x300 bytes of code in 3 blocks right under 64 KiB, tagged from 0xfd: the last tag.
    let ok = gen_bootloader_file(0xfd, &[0x5a; 0x300]);
    assert_eq!(check::gen_bootloader(&ok), Ok((0x300, 0xfd, 0xfd00)));
    // A partial block rounds up: 0x101 bytes take two blocks.
    assert_eq!(
        check::gen_bootloader(&gen_bootloader_file(0x10, &[1; 0x101])),
        Ok((0x101, 0x10, 0xfe00))
    );
    // One tag too far.
    assert!(
        check::gen_bootloader(&gen_bootloader_file(0xfe, &[0x5a; 0x300]))
            .unwrap_err()
            .contains("start tag")
    );
    // Code larger than 64 KiB.
    assert!(
        check::gen_bootloader(&gen_bootloader_file(0, &vec![0; 0x10100]))
            .unwrap_err()
            .contains("64 KiB")
    );
    // No code.
    assert!(check::gen_bootloader(&gen_bootloader_file(0, &[])).is_err());
    // The code past the data.
    let mut past = ok.clone();
    past[0x24..0x28].copy_from_slice(&0x301u32.to_le_bytes());
    assert!(check::gen_bootloader(&past)
        .unwrap_err()
        .contains("bootloader code"));
    // Every byte of the headers, every value class: never a panic.
    for at in 0..0x30 {
        for v in [0, 1, 0x7f, 0x80, 0xff] {
            let mut f = ok.clone();
            f[at] = v;
            let _ = check::gen_bootloader(&f);
        }
    }
}

#[test]
fn the_generic_bootloader_of_the_firmware_package() {
    let path = "/usr/lib/firmware/nvidia/tu102/gsp/gen_bootloader-570.144.bin";
    let Ok(file) = std::fs::read(path) else {
        eprintln!("skipped: {path} absent");
        return;
    };
    // 0x200 bytes of code, start tag 0xfd, loaded right under 64 KiB.
    assert_eq!(check::gen_bootloader(&file), Ok((0x200, 0xfd, 0xfe00)));
    for cut in [0, 0x10, 0x2c, 0x100] {
        assert!(
            check::gen_bootloader(&file[..cut]).is_err(),
            "cut at {cut:#x}"
        );
    }
    // A start tag whose blocks run past the 256 tags.
    let mut bad = file.clone();
    bad[0x18..0x1c].copy_from_slice(&0xffu32.to_le_bytes());
    assert!(check::gen_bootloader(&bad)
        .unwrap_err()
        .contains("start tag"));
    for at in 0..file.len().min(0x40) {
        let mut f = file.clone();
        f[at] ^= 0xff;
        let _ = check::gen_bootloader(&f);
    }
}

/// Where a package has no 570.144 files the driver takes `acr/bl.bin` for the generic
/// bootloader: in the package, both names of every chip that has both hold what the driver
/// loads byte for byte (the files' headers differ: `acr/bl.bin` puts its descriptor at 0x100
/// and its data at 0x200).
#[test]
fn both_names_of_the_generic_bootloader_load_the_same_code() {
    let root = std::path::Path::new("/usr/lib/firmware/nvidia");
    let mut compared = 0;
    for chip in ["tu102", "tu104", "tu106", "tu116", "tu117", "ga100"] {
        let gsp = root.join(chip).join("gsp/gen_bootloader-570.144.bin");
        let acr = root.join(chip).join("acr/bl.bin");
        let (Ok(gsp), Ok(acr)) = (std::fs::read(&gsp), std::fs::read(&acr)) else {
            continue;
        };
        assert_ne!(gsp, acr, "{chip}: the files themselves differ");
        let loaded = check::gen_bootloader_loaded(&gsp).expect("gen_bootloader valid");
        assert_eq!(
            check::gen_bootloader_loaded(&acr).expect("acr/bl.bin valid"),
            loaded,
            "{chip}"
        );
        compared += 1;
    }
    if compared == 0 {
        eprintln!("skipped: no chip under {} has both files", root.display());
        return;
    }
    assert_eq!(compared, 6);
}

#[test]
fn frts_is_done_only_with_clear_status_and_wpr2_at_the_region() {
    let frts = (0x5_ffe0_0000, 0x5_fff0_0000);
    let reg = |a: u64| ((a >> 12) << 4) as u32;
    // HI holds the start of the last 128 KiB granule.
    let last = |end: u64| reg(end.saturating_sub(0x20000));
    assert_eq!(
        check::frts_outcome(0, 0, reg(frts.0), last(frts.1), frts),
        Ok(frts)
    );
    // The low 16 bits of the scratch register are not the error code.
    assert!(check::frts_outcome(0, 0xffff, reg(frts.0), last(frts.1), frts).is_ok());
    assert_eq!(
        check::frts_outcome(4, 0, reg(frts.0), last(frts.1), frts).unwrap_err(),
        "FWSEC-FRTS failed: mailbox 0 = 0x00000004"
    );
    assert!(
        check::frts_outcome(0, 0x17 << 16, reg(frts.0), last(frts.1), frts)
            .unwrap_err()
            .contains("error code 0x0017")
    );
    assert_eq!(
        check::frts_outcome(0, 0, 0, 0, frts).unwrap_err(),
        "FWSEC-FRTS halted without setting WPR2"
    );
    assert!(
        check::frts_outcome(0, 0, reg(0x1000_0000), last(frts.1), frts)
            .unwrap_err()
            .contains("not at the FRTS region")
    );
    // Ending short of the region is not covering it.
    assert!(check::frts_outcome(0, 0, reg(frts.0), last(frts.1 - 0x20000), frts).is_err());
    // A device gone reads all ones everywhere.
    assert!(check::frts_outcome(u32::MAX, u32::MAX, u32::MAX, u32::MAX, frts).is_err());
}

#[test]
fn falcon_conditions_hold_as_their_fields_say_and_all_ones_confirms_nothing() {
    // Which bits say what is the kernel's to decode (KUnit `nova_core_falcon`); here, what the
    // validator makes of it, on words of every kind.
    for raw in [
        0,
        1,
        0x10,
        0x8000_0001,
        0xbadf_4100,
        0xbadf_41ff,
        u32::MAX - 1,
        u32::MAX,
    ] {
        for fields_hold in [false, true] {
            check::falcon_conditions(raw, fields_hold);
        }
    }
    assert_eq!(
        check::falcon_conditions(0x10, false)[6]
            .clone()
            .unwrap_err(),
        "not falcon core selected (RISCV_BCR_CTRL = 0x00000010)"
    );
}
