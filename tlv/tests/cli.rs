// SPDX-License-Identifier: GPL-2.0

//! The command line on bad input: one line naming the file and what is wrong, a non-zero exit
//! status, nothing written, never a panic. Needs no firmware package.

use std::{
    fs,
    path::{
        Path,
        PathBuf, //
    },
    process::{
        Command,
        Output, //
    },
};

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-{name}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn nova_tlv(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nova-tlv"))
        .args(args)
        .output()
        .expect("run nova-tlv")
}

/// Converts ga102's files under `fw` into `fw/out`.
fn convert_ga102(fw: &Path) -> Output {
    let fw_s = fw.to_str().expect("path");
    let out = fw.join("out");
    nova_tlv(&[
        "--firmware-dir",
        fw_s,
        "--chip",
        "ga102",
        "--version",
        "570.144",
        "--out",
        out.to_str().expect("path"),
    ])
}

/// The one line of standard error, checked to be one line.
fn one_line(o: &Output) -> String {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// Puts `bytes` as ga102's `booter_load-570.144.bin` under `fw`.
fn put_booter(fw: &Path, bytes: &[u8]) {
    let dir = fw.join("nvidia/ga102/gsp");
    fs::create_dir_all(&dir).expect("package folder");
    fs::write(dir.join("booter_load-570.144.bin"), bytes).expect("write");
}

#[test]
fn help_exits_zero() {
    let o = nova_tlv(&["--help"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("--firmware-dir DIR"), "{text}");
    assert!(text.contains("--dump FILE.tlv"), "{text}");
}

#[test]
fn usage_error_exits_two() {
    let o = nova_tlv(&["--chip", "ga102"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(one_line(&o).contains("--firmware-dir is missing"));
    let o = nova_tlv(&[]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn missing_file_is_named() {
    let fw = scratch("missing");
    let o = convert_ga102(&fw);
    assert_eq!(o.status.code(), Some(1));
    let err = one_line(&o);
    assert!(
        err.contains("nvidia/ga102/gsp/booter_load-570.144.bin: cannot read"),
        "{err}"
    );
    assert!(!fw.join("out").exists());
}

#[test]
fn bad_magic_is_named() {
    let fw = scratch("magic");
    put_booter(&fw, &[0x55; 64]);
    let o = convert_ga102(&fw);
    assert_eq!(o.status.code(), Some(1));
    let err = one_line(&o);
    assert!(
        err.contains("booter_load-570.144.bin: not an NVIDIA binary firmware file"),
        "{err}"
    );
    assert!(!fw.join("out").exists());
}

#[test]
fn offset_out_of_range_is_named() {
    let fw = scratch("range");
    let mut f = vec![0u8; 64];
    // Magic, version, size, sub-header at 24, data at 32, 0x1000 bytes (past the end).
    for (i, w) in [0x10de_u32, 1, 64, 24, 32, 0x1000].iter().enumerate() {
        f[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    put_booter(&fw, &f);
    let o = convert_ga102(&fw);
    assert_eq!(o.status.code(), Some(1));
    let err = one_line(&o);
    assert!(
        err.contains(
            "booter_load-570.144.bin: data region (0x1000 bytes at 0x20) lies outside the \
             file (0x40 bytes)"
        ),
        "{err}"
    );
}

#[test]
fn truncated_file_is_named() {
    let fw = scratch("truncated");
    put_booter(&fw, &[0xde, 0x10, 0, 0]);
    let o = convert_ga102(&fw);
    assert_eq!(o.status.code(), Some(1));
    assert!(one_line(&o).contains("before the end of the binary header"));
}

#[test]
fn dump_of_a_bad_file_fails() {
    let dir = scratch("dump");
    let f = dir.join("x.tlv");
    fs::write(&f, b"NVFWVERS\x07\0\0\x00570").expect("write");
    let o = nova_tlv(&["--dump", f.to_str().expect("path")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(one_line(&o).contains("x.tlv: file ends inside the block at 0x4"));
}
