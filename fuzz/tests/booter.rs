// SPDX-License-Identifier: GPL-2.0

//! The booter file validator (`firmware/booter.rs`) on the host: every real `booter_load` and
//! `booter_unload` file of every Turing, Ampere and Ada chip validates, with the values NVIDIA
//! ships; a synthetic file decodes field for field; one mutation per rejection, of the
//! synthetic file and of real files, is refused with that rejection's message; the fuse rule
//! picks the signatures NVIDIA's drivers pick; and byte writes and truncations of the real
//! files never panic.

use std::path::PathBuf;

use nova_core_parse::check::{
    self,
    BooterFacts, //
};

fn fw_root() -> PathBuf {
    PathBuf::from(std::env::var("NOVA_FW_ROOT").unwrap_or_else(|_| "/usr/lib/firmware".into()))
}

/// The chips that boot through the booter, and the versions shipped for them.
const CHIPS: [&str; 16] = [
    "tu102", "tu104", "tu106", "tu116", "tu117", "ga100", "ga102", "ga103", "ga104", "ga106",
    "ga107", "ad102", "ad103", "ad104", "ad106", "ad107",
];
const VERSIONS: [&str; 2] = ["535.113.01", "570.144"];
const KINDS: [&str; 2] = ["booter_load", "booter_unload"];

/// A real file, or `None` (said) where the firmware folder is absent.
fn real(chip: &str, kind: &str, version: &str) -> Option<Vec<u8>> {
    let dir = fw_root().join("nvidia");
    if !dir.is_dir() {
        eprintln!("skipped: {} absent", dir.display());
        return None;
    }
    let path = dir
        .join(chip)
        .join("gsp")
        .join(format!("{kind}-{version}.bin"));
    Some(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn get(f: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(f[at..at + 4].try_into().unwrap())
}

fn put(f: &mut [u8], at: usize, v: u32) {
    f[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn every_real_booter_file_validates_with_the_values_nvidia_ships() {
    let mut n = 0;
    for chip in CHIPS {
        for version in VERSIONS {
            for kind in KINDS {
                let Some(file) = real(chip, kind, version) else {
                    return;
                };
                let name = format!("{chip} {kind}-{version}");
                let facts = check::booter(&file, chip).unwrap_or_else(|e| panic!("{name}: {e}"));
                // The driver's own path, through validate_file.
                check::firmware_file(kind, version, chip, &file)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let turing = chip.starts_with("tu") || chip == "ga100";
                let rsa = chip != "tu102" && !chip.starts_with("tu");
                // Turing: one 16-byte signature; GA100: one RSA-3K; GA102 on: two RSA-3K.
                let signatures = match (turing, rsa) {
                    (true, false) => (1, 0x10),
                    (true, true) => (1, 0x180),
                    _ => (2, 0x180),
                };
                assert_eq!(facts.signatures, signatures, "{name}");
                assert_eq!(facts.os_code, (0, 0x100), "{name}");
                assert_eq!(facts.app0.0, 0x100, "{name}");
                let ucode_id = if chip.starts_with("tu") { 13 } else { 3 };
                let fuse_version = u32::from(!turing);
                assert_eq!(facts.params, (fuse_version, 1, ucode_id), "{name}");
                assert_eq!(facts.imem_ns.is_some(), turing, "{name}");
                // The signature's place in the OS data: 0x200 bytes in on Turing and GA100,
                // 0x10 from GA102 on.
                let sig_at = if turing { 0x200 } else { 0x10 };
                assert_eq!(facts.patch_loc, facts.os_data.0 + sig_at, "{name}");
                assert_eq!(facts.boot_addr, if turing { 0 } else { 0x100 }, "{name}");
                n += 1;
            }
        }
    }
    assert_eq!(n, CHIPS.len() * VERSIONS.len() * KINDS.len());
}

/// Where the synthetic file keeps its structures: binary header at 0, HS header at `HS`, the
/// three words at `WORDS`, the signature parameters at `META`, the load header at `LOAD`, two
/// 16-byte signatures at `SIGS`, the image at `DATA`.
const HS: usize = 0x40;
const WORDS: usize = 0x80;
const META: usize = 0x90;
const LOAD: usize = 0xa0;
const SIGS: usize = 0x100;
const DATA: usize = 0x200;

/// A booter file made here, laid out as NVIDIA's, with an image of `image` bytes: OS code
/// 0x100 bytes at 0, application 0's code 0x200 bytes at 0x100, OS data 0x300 bytes at 0x300
/// with the signature's place at 0x400; fuse version 2, engine mask 1 (SEC2), ucode id 3.
fn synthetic_with(image: usize) -> Vec<u8> {
    let mut f = vec![0u8; DATA + image];
    let len = f.len() as u32;
    for (at, v) in [(0, 0x10de), (4, 1), (8, len), (12, HS as u32)] {
        put(&mut f, at, v);
    }
    put(&mut f, 16, DATA as u32);
    put(&mut f, 20, image as u32);
    let hs = [
        SIGS as u32,
        32,
        WORDS as u32,
        WORDS as u32 + 4,
        META as u32,
        12,
        WORDS as u32 + 8,
        LOAD as u32,
        36,
    ];
    for (i, v) in hs.into_iter().enumerate() {
        put(&mut f, HS + 4 * i, v);
    }
    for (i, v) in [0x400, 0, 2].into_iter().enumerate() {
        put(&mut f, WORDS + 4 * i, v);
    }
    for (i, v) in [2, 1, 3].into_iter().enumerate() {
        put(&mut f, META + 4 * i, v);
    }
    let load = [0, 0x100, 0x300, 0x300, 1, 0x100, 0x200, 0x100, 0];
    for (i, v) in load.into_iter().enumerate() {
        put(&mut f, LOAD + 4 * i, v);
    }
    f[SIGS..SIGS + 16].fill(0x51);
    f[SIGS + 16..SIGS + 32].fill(0x52);
    for (i, b) in f[DATA..].iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    f
}

fn synthetic() -> Vec<u8> {
    synthetic_with(0x600)
}

#[test]
fn a_synthetic_file_decodes_field_for_field() {
    let f = synthetic();
    let ga102 = check::booter(&f, "ga102").unwrap();
    assert_eq!(
        ga102,
        BooterFacts {
            image: (DATA, 0x600),
            signatures: (2, 16),
            os_code: (0, 0x100),
            os_data: (0x300, 0x300),
            app0: (0x100, 0x200),
            patch_loc: 0x400,
            params: (2, 1, 3),
            imem_ns: None,
            imem_sec: (0x100, 0, 0x200),
            dmem: (0x300, 0, 0x300),
            boot_addr: 0x100,
            brom: Some((0x100, 1, 3)),
            text: ga102.text.clone(),
        }
    );
    assert_eq!(
        ga102.text,
        "HS ucode 0x600 bytes at 0x200, OS code 0x0+0x100, app 0 0x100+0x200, OS data \
         0x300+0x300, 2 signatures of 0x10 bytes, patched at 0x400, fuse version 2, engines \
         0x1, ucode id 3, GA102 layout"
    );
    let tu102 = check::booter(&f, "tu102").unwrap();
    assert_eq!(
        (
            tu102.imem_ns,
            tu102.imem_sec,
            tu102.dmem,
            tu102.boot_addr,
            tu102.brom
        ),
        (
            Some((0, 0, 0x100)),
            (0x100, 0x100, 0x200),
            (0x300, 0, 0x300),
            0,
            None
        )
    );
    // GA100 loads as Turing.
    assert_eq!(
        check::booter(&f, "ga100").unwrap().imem_ns,
        Some((0, 0, 0x100))
    );
    assert_eq!(check::booter(&f, "ad107").unwrap().imem_ns, None);
}

/// One corruption: words written at file offsets, the chip it is loaded on, and the message it
/// must be refused with.
struct Case {
    writes: Vec<(usize, u32)>,
    chip: &'static str,
    expected: String,
}

fn case(writes: &[(usize, u32)], chip: &'static str, expected: &str) -> Case {
    Case {
        writes: writes.to_vec(),
        chip,
        expected: expected.to_string(),
    }
}

/// Runs every case on `file`; returns the cases refused otherwise (all of them, not only the
/// first).
fn run(file: &[u8], cases: &[Case]) -> Vec<String> {
    let mut wrong = Vec::new();
    for c in cases {
        let mut f = file.to_vec();
        for &(at, v) in &c.writes {
            put(&mut f, at, v);
        }
        let got = check::booter(&f, c.chip).map(|_| ());
        if got != Err(c.expected.clone()) {
            wrong.push(format!(
                "{:x?} on {}: {got:?}, expected {:?}",
                c.writes, c.chip, c.expected
            ));
        }
    }
    wrong
}

#[test]
fn each_rejection_of_a_synthetic_file_is_named() {
    let f = synthetic();
    let len = f.len() as u32;
    let cases = [
        case(
            &[(12, len - 0x20), (16, len - 0x10), (20, 0x10)],
            "ga102",
            "booter HS header at 0x7e0 (0x24 bytes) lies outside the file (0x800 bytes)",
        ),
        case(
            &[(HS + 8, len - 2)],
            "ga102",
            "booter patch location word at 0x7fe (0x4 bytes) lies outside the file (0x800 bytes)",
        ),
        case(
            &[(HS + 12, u32::MAX - 1)],
            "ga102",
            "booter signature offset word at 0xfffffffe (0x4 bytes) lies outside the file (0x800 bytes)",
        ),
        case(
            &[(HS + 24, len)],
            "ga102",
            "booter signature count word at 0x800 (0x4 bytes) lies outside the file (0x800 bytes)",
        ),
        case(&[(WORDS + 8, 0)], "ga102", "booter signature count is 0"),
        case(
            &[(WORDS + 8, 3)],
            "ga102",
            "booter signatures of 0x20 bytes do not make 3 signatures of one non-zero size",
        ),
        case(
            &[(HS + 4, 0)],
            "ga102",
            "booter signatures of 0x0 bytes do not make 2 signatures of one non-zero size",
        ),
        case(
            &[(WORDS + 4, 0x700)],
            "ga102",
            "booter signatures at 0x800 (0x20 bytes) lies outside the file (0x800 bytes)",
        ),
        case(
            &[(HS + 16, len - 4)],
            "ga102",
            "booter signature parameters at 0x7fc (0xc bytes) lies outside the file (0x800 bytes)",
        ),
        case(
            &[(HS + 20, 8)],
            "ga102",
            "booter signature parameters of 0x8 bytes, 0xc needed",
        ),
        case(
            &[(HS + 28, len - 0x10)],
            "ga102",
            "booter load header at 0x7f0 (0x24 bytes) lies outside the file (0x800 bytes)",
        ),
        case(&[(HS + 32, 16)], "ga102", "booter load header of 0x10 bytes, 0x14 needed"),
        case(
            &[(LOAD + 16, 2)],
            "ga102",
            "booter load header of 0x24 bytes, 0x34 needed",
        ),
        case(
            &[(LOAD + 16, 0)],
            "ga102",
            "booter load header lists no application",
        ),
        case(
            &[(LOAD + 16, 0x1000_0000)],
            "ga102",
            "booter application table at 0xa0 (0x100000014 bytes) lies outside the file (0x800 bytes)",
        ),
        case(
            &[(LOAD + 4, 0x601)],
            "ga102",
            "booter OS code 0x0+0x601 lies outside the image (0x600 bytes)",
        ),
        case(
            &[(LOAD + 12, 0x301)],
            "ga102",
            "booter OS data 0x300+0x301 lies outside the image (0x600 bytes)",
        ),
        case(
            &[(LOAD + 20, u32::MAX)],
            "ga102",
            "booter application 0 code 0xffffffff+0x200 lies outside the image (0x600 bytes)",
        ),
        case(
            &[(WORDS, 0x2ff)],
            "ga102",
            "booter signature patch at 0x2ff (0x10 bytes) is not inside the OS data 0x300+0x300",
        ),
        case(
            &[(WORDS, 0x5f1)],
            "ga102",
            "booter signature patch at 0x5f1 (0x10 bytes) is not inside the OS data 0x300+0x300",
        ),
        case(
            &[(META + 4, 0x1_0000)],
            "ga102",
            "booter engine id mask 0x10000 is wider than 16 bits",
        ),
        case(&[(META + 8, 0)], "ga102", "booter ucode id 0 is not 1 to 16"),
        case(&[(META + 8, 17)], "ga102", "booter ucode id 17 is not 1 to 16"),
        case(
            &[(LOAD + 20, 0x180)],
            "ga102",
            "booter application 0 code at 0x180 does not start on a 256-byte block",
        ),
        case(
            &[(LOAD + 8, 0x310), (LOAD + 12, 0x2f0)],
            "ga102",
            "booter OS data at 0x310 does not start on a 256-byte block",
        ),
        // Turing loads the OS code at its offset, GA102 does not load it (below).
        case(
            &[(LOAD, 0x80)],
            "tu102",
            "booter OS code at 0x80 does not start on a 256-byte block",
        ),
        case(
            &[(LOAD + 4, 0x200)],
            "tu102",
            "booter OS code 0x0+0x200 and application 0 code 0x100+0x200 overlap in IMEM",
        ),
    ];
    let wrong = run(&f, &cases);
    assert!(wrong.is_empty(), "{wrong:#?}");
    // What one family refuses, the other may load.
    assert!(check::booter(&with(&f, &[(LOAD, 0x80)]), "ga102").is_ok());
    assert!(check::booter(&with(&f, &[(LOAD + 4, 0x200)]), "ga102").is_ok());
}

fn with(file: &[u8], writes: &[(usize, u32)]) -> Vec<u8> {
    let mut f = file.to_vec();
    for &(at, v) in writes {
        put(&mut f, at, v);
    }
    f
}

#[test]
fn parts_past_the_falcon_memories_are_refused_where_the_family_loads_them() {
    // An image larger than the falcon's memories.
    let f = synthetic_with(0x10800);
    assert!(check::booter(&f, "ga102").is_ok());
    let cases = [
        case(
            &[(LOAD + 12, 0x10100)],
            "ga102",
            "booter OS data of 0x10100 bytes at 0x0 goes past the falcon's 64 KiB",
        ),
        case(
            &[(LOAD + 24, 0x10001)],
            "ga102",
            "booter application 0 code of 0x10001 bytes at 0x0 goes past the falcon's 64 KiB",
        ),
        // Turing puts application 0 at its own offset: the last block, and one more.
        case(
            &[(LOAD + 20, 0xff00)],
            "tu102",
            "booter application 0 code of 0x200 bytes at 0xff00 goes past the falcon's 64 KiB",
        ),
        case(
            &[(LOAD, 0xff00), (LOAD + 4, 0x101)],
            "tu102",
            "booter OS code of 0x101 bytes at 0xff00 goes past the falcon's 64 KiB",
        ),
    ];
    let wrong = run(&f, &cases);
    assert!(wrong.is_empty(), "{wrong:#?}");
    // GA102 loads application 0 at IMEM 0, and does not load the OS code.
    assert!(check::booter(&with(&f, &[(LOAD + 20, 0xff00)]), "ga102").is_ok());
    assert!(check::booter(&with(&f, &[(LOAD, 0xff00), (LOAD + 4, 0x101)]), "ga102").is_ok());
}

#[test]
fn the_fuse_selects_the_signature_as_nvidias_drivers_do() {
    let f = synthetic();
    // Two signatures, fuse version 2: no fuse takes the first, a fuse reading 0 the last,
    // version v the one at 2 - v.
    assert_eq!(check::booter_signature(&f, "ga102", None), Ok(0));
    assert_eq!(check::booter_signature(&f, "ga102", Some(0)), Ok(1));
    assert_eq!(check::booter_signature(&f, "ga102", Some(2)), Ok(0));
    assert_eq!(check::booter_signature(&f, "ga102", Some(1)), Ok(1));
    assert_eq!(
        check::booter_signature(&f, "ga102", Some(3)),
        Err(
            "fuse version 3 selects no booter signature (ucode fuse version 2, 2 signatures)"
                .to_string()
        )
    );
    // A fuse version that far below the ucode's is past the signatures.
    let old = with(&f, &[(META, 5)]);
    assert_eq!(
        check::booter_signature(&old, "ga102", Some(1)),
        Err(
            "fuse version 1 selects no booter signature (ucode fuse version 5, 2 signatures)"
                .to_string()
        )
    );
    assert_eq!(check::booter_signature(&old, "ga102", Some(4)), Ok(1));
    let Some(ga102) = real("ga102", "booter_load", "570.144") else {
        return;
    };
    // The real file: fuse version 1, two signatures; a GPU fused at 1 takes the first.
    assert_eq!(check::booter_signature(&ga102, "ga102", Some(1)), Ok(0));
    assert_eq!(check::booter_signature(&ga102, "ga102", Some(0)), Ok(1));
    assert!(check::booter_signature(&ga102, "ga102", Some(2)).is_err());
    let tu102 = real("tu102", "booter_load", "570.144").unwrap();
    assert_eq!(check::booter_signature(&tu102, "tu102", None), Ok(0));
}

/// Where a real file keeps its structures.
struct Layout {
    hs: usize,
    patch_word: usize,
    sig_word: usize,
    count_word: usize,
    meta: usize,
    load: usize,
    image: usize,
    os_data: u32,
    os_data_size: u32,
}

fn layout(f: &[u8]) -> Layout {
    let hs = get(f, 12) as usize;
    let load = get(f, hs + 28) as usize;
    Layout {
        hs,
        patch_word: get(f, hs + 8) as usize,
        sig_word: get(f, hs + 12) as usize,
        count_word: get(f, hs + 24) as usize,
        meta: get(f, hs + 16) as usize,
        load,
        image: get(f, 20) as usize,
        os_data: get(f, load + 8),
        os_data_size: get(f, load + 12),
    }
}

/// One mutation per rejection of a real file loaded on `chip` (GA102 or Turing layout).
fn real_cases(f: &[u8], chip: &'static str) -> Vec<Case> {
    let l = layout(f);
    let len = f.len() as u32;
    let image = l.image as u32;
    let sig_size = if chip == "tu102" { 0x10 } else { 0x180 };
    let app_size = get(f, l.load + 24);
    let file = |at: u32, n: u64, what: &str| {
        format!("booter {what} at {at:#x} ({n:#x} bytes) lies outside the file ({len:#x} bytes)")
    };
    let mut cases = vec![
        case(
            &[(12, len - 0x20), (16, len - 0x10), (20, 0x10)],
            chip,
            &file(len - 0x20, 0x24, "HS header"),
        ),
        case(
            &[(l.hs + 8, len - 2)],
            chip,
            &file(len - 2, 4, "patch location word"),
        ),
        case(
            &[(l.hs + 12, len)],
            chip,
            &file(len, 4, "signature offset word"),
        ),
        case(
            &[(l.hs + 24, u32::MAX)],
            chip,
            &file(u32::MAX, 4, "signature count word"),
        ),
        case(&[(l.count_word, 0)], chip, "booter signature count is 0"),
        case(
            &[(l.count_word, 7)],
            chip,
            &format!(
                "booter signatures of {:#x} bytes do not make 7 signatures of one non-zero size",
                get(f, l.hs + 4)
            ),
        ),
        case(
            &[(l.sig_word, len)],
            chip,
            &file(get(f, l.hs) + len, get(f, l.hs + 4).into(), "signatures"),
        ),
        case(
            &[(l.hs + 16, len - 4)],
            chip,
            &file(len - 4, 0xc, "signature parameters"),
        ),
        case(
            &[(l.hs + 20, 4)],
            chip,
            "booter signature parameters of 0x4 bytes, 0xc needed",
        ),
        case(
            &[(l.hs + 28, len - 8)],
            chip,
            &file(len - 8, 0x24, "load header"),
        ),
        case(
            &[(l.hs + 32, 0x20)],
            chip,
            "booter load header of 0x20 bytes, 0x24 needed",
        ),
        case(
            &[(l.load + 16, 0)],
            chip,
            "booter load header lists no application",
        ),
        case(
            &[(l.load + 16, 0x1000_0000)],
            chip,
            &file(l.load as u32, 0x1_0000_0014, "application table"),
        ),
        case(
            &[(l.load + 4, image + 1)],
            chip,
            &format!("booter OS code 0x0+{:#x} lies outside the image ({image:#x} bytes)", image + 1),
        ),
        case(
            &[(l.load + 12, image - l.os_data + 1)],
            chip,
            &format!(
                "booter OS data {:#x}+{:#x} lies outside the image ({image:#x} bytes)",
                l.os_data,
                image - l.os_data + 1
            ),
        ),
        case(
            &[(l.load + 24, image)],
            chip,
            &format!(
                "booter application 0 code 0x100+{image:#x} lies outside the image ({image:#x} bytes)"
            ),
        ),
        case(
            &[(l.patch_word, l.os_data - 1)],
            chip,
            &format!(
                "booter signature patch at {:#x} ({sig_size:#x} bytes) is not inside the OS data {:#x}+{:#x}",
                l.os_data - 1,
                l.os_data,
                l.os_data_size
            ),
        ),
        case(
            &[(l.meta + 4, 0x1_0000)],
            chip,
            "booter engine id mask 0x10000 is wider than 16 bits",
        ),
        case(&[(l.meta + 8, 17)], chip, "booter ucode id 17 is not 1 to 16"),
        case(
            &[(l.load + 20, 0x180), (l.load + 24, app_size - 0x80)],
            chip,
            "booter application 0 code at 0x180 does not start on a 256-byte block",
        ),
        case(
            &[(l.load + 8, l.os_data + 0x10), (l.load + 12, l.os_data_size - 0x10)],
            chip,
            &format!(
                "booter OS data at {:#x} does not start on a 256-byte block",
                l.os_data + 0x10
            ),
        ),
    ];
    if chip == "tu102" {
        cases.push(case(
            &[(l.load + 4, 0x200)],
            chip,
            &format!(
                "booter OS code 0x0+0x200 and application 0 code 0x100+{app_size:#x} overlap in IMEM"
            ),
        ));
    }
    cases
}

#[test]
fn each_rejection_of_a_real_file_is_named() {
    for (chip, kind, version) in [
        ("ga102", "booter_load", "570.144"),
        ("ad102", "booter_unload", "535.113.01"),
        ("tu102", "booter_load", "570.144"),
        ("tu117", "booter_unload", "535.113.01"),
    ] {
        let Some(f) = real(chip, kind, version) else {
            return;
        };
        let chip_family = if chip.starts_with("tu") {
            "tu102"
        } else {
            "ga102"
        };
        assert!(check::booter(&f, chip_family).is_ok());
        let wrong = run(&f, &real_cases(&f, chip_family));
        assert!(wrong.is_empty(), "{chip} {kind}-{version}: {wrong:#?}");
    }
}

#[test]
fn a_real_file_with_a_larger_image_is_refused_past_the_falcon_memories() {
    let Some(mut f) = real("ga102", "booter_load", "570.144") else {
        return;
    };
    // Grow the image (the binary header's data size) past 64 KiB, then the OS data with it.
    let l = layout(&f);
    f.resize(f.len() + 0x10000, 0);
    put(&mut f, 20, (l.image + 0x10000) as u32);
    assert!(check::booter(&f, "ga102").is_ok());
    let os_data = 0x10000 + 0x100;
    let wrong = run(
        &f,
        &[case(
            &[(l.load + 12, os_data)],
            "ga102",
            &format!("booter OS data of {os_data:#x} bytes at 0x0 goes past the falcon's 64 KiB"),
        )],
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn byte_writes_and_truncations_of_real_files_never_panic() {
    for (chip, file) in [
        ("ga102", real("ga102", "booter_load", "570.144")),
        ("tu102", real("tu102", "booter_unload", "535.113.01")),
    ] {
        let Some(file) = file else {
            return;
        };
        let l = layout(&file);
        let headers = l.load + 0x24;
        let mut refused = 0;
        for at in 0..headers {
            for v in [0, 1, 0x7f, 0x80, 0xff] {
                let mut f = file.clone();
                f[at] = v;
                refused += usize::from(check::booter(&f, chip).is_err());
            }
        }
        assert!(refused > 0);
        for cut in 0..headers.min(file.len()) {
            assert!(
                check::booter(&file[..cut], chip).is_err(),
                "cut at {cut:#x}"
            );
        }
        assert!(check::booter(&file[..file.len() - 1], chip).is_err());
        // The synthetic file's headers, every byte.
        let s = synthetic();
        for at in 0..DATA {
            for v in [0, 1, 0xff] {
                let mut f = s.clone();
                f[at] = v;
                let _ = check::booter(&f, chip);
                let _ = check::booter_file(&f);
            }
        }
    }
}
