// SPDX-License-Identifier: GPL-2.0

//! The converter on the real firmware package: for each chip, `nova-tlv` (the binary) converts
//! the package's files, and every TLV file it wrote is read back with a reader of this test's
//! own, each tag compared with the field it maps to, read here independently from the package
//! file. The values nova-core checks when it reads the files (sizes, ranges, widths) are checked
//! too.
//!
//! The package is read from `NOVA_FW_DIR`, or the build root's `/usr/lib/firmware`; without it
//! every test here (all named `package_...`) says so and passes without checking anything.

use std::{
    collections::BTreeMap,
    fs,
    path::{
        Path,
        PathBuf, //
    },
    process::Command,
};

/// Where the package is when `NOVA_FW_DIR` does not say.
const DEFAULT_FW_DIR: &str = "/var/cache/nova-core/buildroot/usr/lib/firmware";

/// The package's folder, if it is there.
fn firmware_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("NOVA_FW_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_FW_DIR));
    if dir.join("nvidia").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: no firmware package at {} (set NOVA_FW_DIR)",
            dir.display()
        );
        None
    }
}

/// The TLV files nova-core requests for each chip tested (its `gsp/hal.rs`, plus the two every
/// chip needs), and the chip family's signature section of the GSP-RM image.
fn expected(chip: &str) -> (&'static [&'static str], &'static str) {
    const TURING_GA100: &[&str] = &[
        "booter_load",
        "booter_unload",
        "gen_bootloader",
        "gsp_bootloader",
        "gsp",
    ];
    const AMPERE_ADA: &[&str] = &["booter_load", "booter_unload", "gsp_bootloader", "gsp"];
    const HOPPER_BLACKWELL: &[&str] = &["fmc", "gsp_bootloader", "gsp"];
    match chip {
        "tu102" => (TURING_GA100, ".fwsignature_tu10x"),
        "tu116" => (TURING_GA100, ".fwsignature_tu11x"),
        "ga100" => (TURING_GA100, ".fwsignature_ga100"),
        "ga102" => (AMPERE_ADA, ".fwsignature_ga10x"),
        "ad102" => (AMPERE_ADA, ".fwsignature_ad10x"),
        "gh100" => (HOPPER_BLACKWELL, ".fwsignature_gh100"),
        "gb202" => (HOPPER_BLACKWELL, ".fwsignature_gb20x"),
        _ => panic!("no expectations for {chip}"),
    }
}

/// A little-endian 32-bit word of `b` at `at`.
fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("four bytes"))
}

/// A little-endian 64-bit word of `b` at `at`.
fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("eight bytes"))
}

/// This test's own TLV reader: the tags and values of `f`, checked as the format says (magic,
/// blocks filling the file, upper-case tags seen once, zero padding, a VERS tag).
fn read_tlv(name: &str, f: &[u8]) -> BTreeMap<String, Vec<u8>> {
    assert_eq!(&f[..4], b"NVFW", "{name}: magic");
    let mut tags = BTreeMap::new();
    let mut at = 4;
    while at < f.len() {
        assert!(at + 8 <= f.len(), "{name}: block header at {at:#x} cut");
        let tag = std::str::from_utf8(&f[at..at + 4]).expect("ASCII tag");
        assert!(
            tag.bytes()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()),
            "{name}: tag {tag:?}"
        );
        let len = le32(f, at + 4) as usize;
        let stored = len.div_ceil(4) * 4;
        assert!(at + 8 + stored <= f.len(), "{name}: {tag} past the end");
        let value = f[at + 8..at + 8 + len].to_vec();
        assert!(!value.is_empty(), "{name}: {tag} empty");
        assert!(
            f[at + 8 + len..at + 8 + stored].iter().all(|&b| b == 0),
            "{name}: {tag} padding"
        );
        assert!(
            tags.insert(tag.to_string(), value).is_none(),
            "{name}: {tag} twice"
        );
        at += 8 + stored;
    }
    assert_eq!(at, f.len(), "{name}: trailing bytes");
    assert!(tags.contains_key("VERS"), "{name}: no VERS");
    tags
}

/// Checks that the byte arrays `got` and `want` are equal, saying where they first differ
/// rather than printing them.
fn same(got: &[u8], want: &[u8], what: &str) {
    let first = got.iter().zip(want).position(|(a, b)| a != b);
    assert!(
        got.len() == want.len() && first.is_none(),
        "{what}: {} bytes, expected {}; first difference at {first:?}",
        got.len(),
        want.len()
    );
}

/// The 32-bit value of `tag`.
fn tag32(tags: &BTreeMap<String, Vec<u8>>, tag: &str) -> u32 {
    let v = &tags[tag];
    assert_eq!(v.len(), 4, "{tag} is not 32 bits");
    le32(v, 0)
}

/// The names of `tags`, sorted.
fn names(tags: &BTreeMap<String, Vec<u8>>) -> Vec<&str> {
    tags.keys().map(String::as_str).collect()
}

/// The bytes of the section `name` of the ELF file `f` (32- or 64-bit), found with this test's
/// own reading of the section table.
fn section<'a>(f: &'a [u8], name: &str) -> Option<&'a [u8]> {
    let elf64 = f[4] == 2;
    let (shoff, entsize, num, strndx) = if elf64 {
        (
            le64(f, 0x28) as usize,
            usize::from(u16::from_le_bytes([f[0x3a], f[0x3b]])),
            usize::from(u16::from_le_bytes([f[0x3c], f[0x3d]])),
            usize::from(u16::from_le_bytes([f[0x3e], f[0x3f]])),
        )
    } else {
        (
            le32(f, 0x20) as usize,
            usize::from(u16::from_le_bytes([f[0x2e], f[0x2f]])),
            usize::from(u16::from_le_bytes([f[0x30], f[0x31]])),
            usize::from(u16::from_le_bytes([f[0x32], f[0x33]])),
        )
    };
    let header = |i: usize| -> (usize, usize, usize) {
        let h = shoff + i * entsize;
        if elf64 {
            (
                le32(f, h) as usize,
                le64(f, h + 0x18) as usize,
                le64(f, h + 0x20) as usize,
            )
        } else {
            (
                le32(f, h) as usize,
                le32(f, h + 0x10) as usize,
                le32(f, h + 0x14) as usize,
            )
        }
    };
    let names = header(strndx).1;
    (0..num).find_map(|i| {
        let (n, offset, size) = header(i);
        let start = names + n;
        let end = start + f[start..].iter().position(|&b| b == 0)?;
        (&f[start..end] == name.as_bytes()).then(|| &f[offset..offset + size])
    })
}

/// The data region of a binary firmware file (`nvfw_bin_hdr`: data offset and size at 16, 20).
fn bin_data(f: &[u8]) -> &[u8] {
    assert_eq!(le32(f, 0), 0x10de);
    let (off, size) = (le32(f, 16) as usize, le32(f, 20) as usize);
    &f[off..off + size]
}

/// Checks a Booter TLV against its package file `pkg`.
fn check_booter(name: &str, t: &BTreeMap<String, Vec<u8>>, pkg: &[u8]) {
    assert_eq!(
        names(t),
        [
            "A0CO", "A0CS", "BLOB", "CDOF", "CDSZ", "DAOF", "DASZ", "ENID", "FUSE", "NSIG", "PLOC",
            "SIGN", "UCID", "VERS"
        ],
        "{name}"
    );
    same(&t["BLOB"], bin_data(pkg), &format!("{name}: BLOB"));
    // HS header v2 at the binary header's sub-header offset: signatures' offset and size, then
    // the offsets of the patch location, the signatures' extra offset, the signature
    // parameters (and their size), the signature count and the load header.
    let hs = le32(pkg, 12) as usize;
    let w = |i: usize| le32(pkg, hs + 4 * i) as usize;
    let (sig_offset, sig_size) = (w(0), w(1));
    let (patch_loc, patch_sig, meta, num_sig, load) = (w(2), w(3), w(4), w(6), w(7));
    assert_eq!(tag32(t, "PLOC"), le32(pkg, patch_loc), "{name}: PLOC");
    assert_eq!(tag32(t, "NSIG"), le32(pkg, num_sig), "{name}: NSIG");
    let sigs = sig_offset + le32(pkg, patch_sig) as usize;
    same(
        &t["SIGN"],
        &pkg[sigs..sigs + sig_size],
        &format!("{name}: SIGN"),
    );
    assert_eq!(tag32(t, "FUSE"), le32(pkg, meta), "{name}: FUSE");
    assert_eq!(tag32(t, "ENID"), le32(pkg, meta + 4), "{name}: ENID");
    assert_eq!(tag32(t, "UCID"), le32(pkg, meta + 8), "{name}: UCID");
    // HS load header v2: OS code offset and size, OS data offset and size, application count,
    // then application 0's code offset and size.
    for (tag, word) in [
        ("CDOF", 0),
        ("CDSZ", 1),
        ("DAOF", 2),
        ("DASZ", 3),
        ("A0CO", 5),
        ("A0CS", 6),
    ] {
        assert_eq!(tag32(t, tag), le32(pkg, load + 4 * word), "{name}: {tag}");
    }
    // What nova-core's firmware/booter.rs then relies on.
    let nsig = tag32(t, "NSIG") as usize;
    assert!(nsig > 0 && t["SIGN"].len() % nsig == 0, "{name}: NSIG");
    let one_sig = t["SIGN"].len() / nsig;
    let ploc = tag32(t, "PLOC") as usize;
    assert!(
        ploc >= tag32(t, "DAOF") as usize,
        "{name}: PLOC before DAOF"
    );
    assert!(ploc + one_sig <= t["BLOB"].len(), "{name}: patch past BLOB");
    assert!(tag32(t, "ENID") <= 0xffff && tag32(t, "UCID") <= 0xff);
}

/// Checks `gen_bootloader.tlv` against its package file.
fn check_gen_bootloader(t: &BTreeMap<String, Vec<u8>>, pkg: &[u8]) {
    assert_eq!(names(t), ["BLOB", "CDSZ", "STRT", "VERS"]);
    same(&t["BLOB"], bin_data(pkg), "gen_bootloader: BLOB");
    // The bootloader descriptor: start tag, DMEM load offset, code offset, code size.
    let desc = le32(pkg, 12) as usize;
    assert_eq!(tag32(t, "STRT"), le32(pkg, desc), "gen_bootloader: STRT");
    assert_eq!(
        tag32(t, "CDSZ"),
        le32(pkg, desc + 12),
        "gen_bootloader: CDSZ"
    );
    assert_eq!(le32(pkg, desc + 8), 0, "gen_bootloader: code starts BLOB");
    assert!(tag32(t, "CDSZ") as usize <= t["BLOB"].len());
    assert!(tag32(t, "STRT") <= 0xffff);
}

/// Checks `gsp_bootloader.tlv` against its package file.
fn check_gsp_bootloader(t: &BTreeMap<String, Vec<u8>>, pkg: &[u8]) {
    assert_eq!(names(t), ["APPV", "BLOB", "CDOF", "DAOF", "MFOF", "VERS"]);
    same(&t["BLOB"], bin_data(pkg), "gsp_bootloader: BLOB");
    // RM_RISCV_UCODE_DESC: word 7 the application version, 8 the manifest offset, 10 the
    // monitor data offset, 12 the monitor code offset.
    let desc = le32(pkg, 12) as usize;
    for (tag, word) in [("APPV", 7), ("MFOF", 8), ("DAOF", 10), ("CDOF", 12)] {
        assert_eq!(
            tag32(t, tag),
            le32(pkg, desc + 4 * word),
            "gsp_bootloader: {tag}"
        );
    }
}

/// Checks `gsp.tlv` and its companion file in `out` against the GSP-RM image `pkg`.
fn check_gsp(t: &BTreeMap<String, Vec<u8>>, pkg: &[u8], signature: &str, out: &Path) {
    let fwimage = section(pkg, ".fwimage").expect(".fwimage");
    let sig = section(pkg, signature).expect("signature section");
    same(&t["SIGN"], sig, &format!("gsp: SIGN is {signature}"));
    let file = std::str::from_utf8(&t["FILE"]).expect("FILE");
    assert!(!file.contains('/'), "gsp: FILE {file} has a path");
    let companion = fs::read(out.join(file)).expect("companion file");
    assert_eq!(tag32(t, "SIZE") as usize, companion.len(), "gsp: SIZE");
    same(&companion, fwimage, "gsp: companion file is .fwimage");
    match section(pkg, ".note.gnu.build-id") {
        Some(note) => {
            // Name size, descriptor size, type, "GNU\0", then the build id.
            const DIGITS: &[u8; 16] = b"0123456789abcdef";
            let id: Vec<u8> = note[16..16 + le32(note, 4) as usize]
                .iter()
                .flat_map(|&b| [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]])
                .collect();
            assert_eq!(t["BLID"], id, "gsp: BLID");
            assert_eq!(names(t), ["BLID", "FILE", "SIGN", "SIZE", "VERS"]);
        }
        None => assert_eq!(names(t), ["FILE", "SIGN", "SIZE", "VERS"]),
    }
}

/// Checks `fmc.tlv` against the FMC image `pkg`.
fn check_fmc(t: &BTreeMap<String, Vec<u8>>, pkg: &[u8]) {
    assert_eq!(names(t), ["BLOB", "HASH", "PKEY", "SIGN", "VERS"]);
    for (tag, sec) in [
        ("HASH", "hash"),
        ("PKEY", "publickey"),
        ("SIGN", "signature"),
        ("BLOB", "image"),
    ] {
        same(
            &t[tag],
            section(pkg, sec).expect(sec),
            &format!("fmc: {tag} is {sec}"),
        );
    }
    // What nova-core's firmware/fsp.rs then relies on.
    assert_eq!(t["HASH"].len(), 48);
    assert!(t["PKEY"].len() <= 384 && t["SIGN"].len() <= 384);
}

/// Converts `chip`'s files of `version` with the binary and checks every file it wrote.
fn convert_and_check(fw: &Path, chip: &str, version: &str) {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("package-{chip}-{version}"));
    let _ = fs::remove_dir_all(&out);
    let run = Command::new(env!("CARGO_BIN_EXE_nova-tlv"))
        .arg("--firmware-dir")
        .arg(fw)
        .args(["--chip", chip, "--version", version, "--out"])
        .arg(&out)
        .output()
        .expect("run nova-tlv");
    assert!(
        run.status.success(),
        "{chip} {version}: {}",
        String::from_utf8_lossy(&run.stderr)
    );

    let (files, signature) = expected(chip);
    let mut written: Vec<String> = fs::read_dir(&out)
        .expect("output folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut wanted: Vec<String> = files.iter().map(|f| format!("{f}.tlv")).collect();
    wanted.push("gsp.bin".into());
    wanted.sort();
    assert_eq!(written, wanted, "{chip} {version}: files written");

    let pkg_dir = fw.join("nvidia").join(chip).join("gsp");
    for &file in files {
        let (source, source_version) = match file {
            "gsp_bootloader" => ("bootloader", version),
            // NVIDIA ships the generic bootloader in one version.
            "gen_bootloader" => ("gen_bootloader", "570.144"),
            other => (other, version),
        };
        let pkg =
            fs::read(pkg_dir.join(format!("{source}-{source_version}.bin"))).expect("package file");
        let tlv = fs::read(out.join(format!("{file}.tlv"))).expect("TLV file");
        let t = read_tlv(file, &tlv);
        assert_eq!(t["VERS"], source_version.as_bytes(), "{file}: VERS");
        match file {
            "booter_load" | "booter_unload" => check_booter(file, &t, &pkg),
            "gen_bootloader" => check_gen_bootloader(&t, &pkg),
            "gsp_bootloader" => check_gsp_bootloader(&t, &pkg),
            "gsp" => check_gsp(&t, &pkg, signature, &out),
            "fmc" => check_fmc(&t, &pkg),
            _ => unreachable!(),
        }
    }
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn package_tu102_both_versions() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "tu102", "570.144");
    convert_and_check(&fw, "tu102", "535.113.01");
}

#[test]
fn package_tu116_signature_of_its_family() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "tu116", "570.144");
}

#[test]
fn package_ga100_both_versions() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "ga100", "570.144");
    convert_and_check(&fw, "ga100", "535.113.01");
}

#[test]
fn package_ga102_both_versions() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "ga102", "570.144");
    convert_and_check(&fw, "ga102", "535.113.01");
}

#[test]
fn package_ad102_both_versions() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "ad102", "570.144");
    convert_and_check(&fw, "ad102", "535.113.01");
}

#[test]
fn package_gh100_fmc() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "gh100", "570.144");
}

#[test]
fn package_gb202_fmc() {
    let Some(fw) = firmware_dir() else { return };
    convert_and_check(&fw, "gb202", "570.144");
}

#[test]
fn package_rejects_a_version_the_image_does_not_have() {
    let Some(fw) = firmware_dir() else { return };
    // gh100's files exist in 570.144 only.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("package-gh100-535");
    let run = Command::new(env!("CARGO_BIN_EXE_nova-tlv"))
        .arg("--firmware-dir")
        .arg(&fw)
        .args(["--chip", "gh100", "--version", "535.113.01", "--out"])
        .arg(&out)
        .output()
        .expect("run nova-tlv");
    assert_eq!(run.status.code(), Some(1));
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("fmc-535.113.01.bin: cannot read"), "{err}");
    assert!(!out.exists(), "nothing is written on failure");
}
