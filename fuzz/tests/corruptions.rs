// SPDX-License-Identifier: GPL-2.0

//! Generated corruptions of every real firmware file the driver loads
//! (`nvidia/<chip>/gsp/*.bin` of firmware-nvidia-graphics, under `NOVA_FW_ROOT` or
//! `/usr/lib/firmware`, as in the build root): truncations at every structural boundary,
//! flipped magic, offsets and sizes pointing outside the file, overlapping sections, huge
//! sizes, version strings of other versions or not terminated, an empty file. Each goes
//! through the driver's own validators (the parsing core); each must be rejected, except the
//! few that leave the file valid, and none may panic.

use std::collections::HashMap;
use std::path::PathBuf;

use nova_core_parse::check;

fn fw_root() -> PathBuf {
    PathBuf::from(std::env::var("NOVA_FW_ROOT").unwrap_or_else(|_| "/usr/lib/firmware".into()))
}

/// (chip, kind, version, path) of every GSP file of every supported chip.
fn files() -> Vec<(String, String, String, PathBuf)> {
    let mut out = Vec::new();
    for chip in check::chip_names() {
        let dir = fw_root().join("nvidia").join(chip).join("gsp");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (run inside the build root: make test)",
                dir.display()
            )
        });
        for e in entries {
            let path = e.expect("dir entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let Some(stem) = name.strip_suffix(".bin") else {
                continue;
            };
            let Some((kind, version)) = stem.split_once('-') else {
                continue;
            };
            if ["booter_load", "booter_unload", "bootloader", "fmc", "gsp"].contains(&kind) {
                out.push((
                    chip.to_string(),
                    kind.to_string(),
                    version.to_string(),
                    path,
                ));
            }
        }
    }
    out.sort();
    out
}

fn get(data: &[u8], at: usize, n: usize) -> u64 {
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&data[at..at + n]);
    u64::from_le_bytes(b)
}

/// One corruption: where to write which bytes, or where to cut.
enum Edit {
    Truncate(usize),
    Write(usize, Vec<u8>, &'static str),
}

/// The section table of a valid ELF file: (header offset, name, offset, size) per section,
/// and where its fields sit for the class.
struct Elf {
    is64: bool,
    shoff: usize,
    shentsize: usize,
    shnum: usize,
    sections: Vec<(usize, String, usize, usize)>,
}

fn parse_elf(d: &[u8]) -> Elf {
    let is64 = d[4] == 2;
    let (shoff, shentsize, shnum, shstrndx) = if is64 {
        (
            get(d, 0x28, 8) as usize,
            get(d, 0x3a, 2) as usize,
            get(d, 0x3c, 2) as usize,
            get(d, 0x3e, 2) as usize,
        )
    } else {
        (
            get(d, 0x20, 4) as usize,
            get(d, 0x2e, 2) as usize,
            get(d, 0x30, 2) as usize,
            get(d, 0x32, 2) as usize,
        )
    };
    let field = |i: usize, off64: usize, off32: usize, n64: usize| {
        let h = shoff + i * shentsize;
        if is64 {
            get(d, h + off64, n64) as usize
        } else {
            get(d, h + off32, 4) as usize
        }
    };
    let strtab = field(shstrndx, 0x18, 0x10, 8);
    let mut sections = Vec::new();
    for i in 0..shnum {
        let name_off = strtab + field(i, 0, 0, 4);
        let end = d[name_off..].iter().position(|&b| b == 0).unwrap();
        let name = String::from_utf8_lossy(&d[name_off..name_off + end]).into_owned();
        sections.push((
            shoff + i * shentsize,
            name,
            field(i, 0x18, 0x10, 8),
            field(i, 0x20, 0x14, 8),
        ));
    }
    Elf {
        is64,
        shoff,
        shentsize,
        shnum,
        sections,
    }
}

fn elf_edits(d: &[u8], version: &str) -> Vec<Edit> {
    let elf = parse_elf(d);
    let len = d.len();
    let w = |n: usize| if elf.is64 { n } else { 4 };
    let le = |v: u64, n: usize| v.to_le_bytes()[..n].to_vec();
    let mut e = Vec::new();
    // Truncations at every structural boundary.
    let ehdr = if elf.is64 { 64 } else { 52 };
    let mut cuts = vec![1, 3, 4, 15, 16, ehdr - 1, ehdr, elf.shoff, elf.shoff + 1];
    for i in 0..=elf.shnum {
        cuts.push(elf.shoff + i * elf.shentsize - usize::from(i > 0));
    }
    for (_, _, off, size) in &elf.sections {
        cuts.extend([*off, off + size / 2, (off + size).saturating_sub(1)]);
    }
    cuts.push(len - 1);
    for c in cuts {
        if c < len {
            e.push(Edit::Truncate(c));
        }
    }
    // Magic, class, byte order.
    for (i, &b) in d.iter().enumerate().take(4) {
        e.push(Edit::Write(i, vec![b ^ 0xff], "magic"));
    }
    e.push(Edit::Write(4, vec![3], "class"));
    e.push(Edit::Write(5, vec![2], "byte order"));
    // The section header table pointing outside the file, or with a bad shape.
    let (shoff_at, shent_at, shnum_at, shstr_at) = if elf.is64 {
        (0x28, 0x3a, 0x3c, 0x3e)
    } else {
        (0x20, 0x2e, 0x30, 0x32)
    };
    for v in [len as u64, len as u64 - 1, u64::MAX, 1 << 63, u64::MAX - 63] {
        e.push(Edit::Write(shoff_at, le(v, w(8)), "shoff"));
    }
    for v in [
        0u64,
        1,
        elf.shentsize as u64 - 1,
        elf.shentsize as u64 + 1,
        0xffff,
    ] {
        e.push(Edit::Write(shent_at, le(v, 2), "shentsize"));
    }
    for v in [0u64, elf.shnum as u64 + 1, 0xffff] {
        e.push(Edit::Write(shnum_at, le(v, 2), "shnum"));
    }
    for v in [elf.shnum as u64, 0xffff] {
        e.push(Edit::Write(shstr_at, le(v, 2), "shstrndx"));
    }
    // Every section: outside the file, huge, overlapping its predecessor, unnamed.
    let (name_at, off_at, size_at) = if elf.is64 {
        (0, 0x18, 0x20)
    } else {
        (0, 0x10, 0x14)
    };
    for (i, (h, _, off, size)) in elf.sections.iter().enumerate() {
        if *size == 0 {
            continue;
        }
        e.push(Edit::Write(
            h + off_at,
            le(len as u64, w(8)),
            "section offset",
        ));
        e.push(Edit::Write(
            h + off_at,
            le(u64::MAX - *size as u64 + 1, w(8)),
            "section offset",
        ));
        e.push(Edit::Write(h + size_at, le(u64::MAX, w(8)), "section size"));
        e.push(Edit::Write(
            h + size_at,
            le((len - off + 1) as u64, w(8)),
            "section size",
        ));
        e.push(Edit::Write(h + name_at, le(0xffff_fff0, 4), "section name"));
        if let Some((_, _, prev_off, prev_size)) = elf.sections[..i].iter().rev().find(|s| s.3 > 0)
        {
            // Start inside the previous section.
            e.push(Edit::Write(
                h + off_at,
                le((prev_off + prev_size / 2) as u64, w(8)),
                "overlap",
            ));
        }
    }
    // .fwversion: the other version's string, unterminated, shortened.
    if let Some((_, _, off, size)) = elf.sections.iter().find(|s| s.1 == ".fwversion") {
        let other = if version == "570.144" {
            "535.113.01"
        } else {
            "570.144"
        };
        let mut text = other.as_bytes().to_vec();
        text.resize(*size, 0);
        e.push(Edit::Write(*off, text, "version of the other release"));
        e.push(Edit::Write(
            off + size - 1,
            vec![b'9'],
            "version not terminated",
        ));
        e.push(Edit::Write(off + size - 2, vec![0], "version shortened"));
    }
    e
}

fn bin_edits(d: &[u8]) -> Vec<Edit> {
    let len = d.len();
    let header_offset = get(d, 12, 4) as usize;
    let data_offset = get(d, 16, 4) as usize;
    let data_size = get(d, 20, 4) as usize;
    let mut e = Vec::new();
    for c in [
        1,
        3,
        4,
        11,
        12,
        23,
        24,
        header_offset,
        header_offset + 15,
        data_offset,
        data_offset + data_size - 1,
    ] {
        if c < len {
            e.push(Edit::Truncate(c));
        }
    }
    e.push(Edit::Write(0, vec![d[0] ^ 0xff], "magic"));
    for (at, v) in [
        (12, len as u32),
        (12, 0),
        (12, u32::MAX),
        (16, len as u32),
        (16, u32::MAX),
        (16, 0),
        (20, 0),
        (20, u32::MAX),
        (20, (len - data_offset + 1) as u32),
    ] {
        e.push(Edit::Write(at, v.to_le_bytes().to_vec(), "header field"));
    }
    e
}

#[derive(Default)]
struct Tally {
    inputs: usize,
    rejected: usize,
    accepted: Vec<String>,
}

fn run(kind: &str, version: &str, chip: &str, data: &mut [u8], edits: Vec<Edit>, t: &mut Tally) {
    for edit in edits {
        t.inputs += 1;
        let (result, what) = match edit {
            Edit::Truncate(n) => (
                check::firmware_file(kind, version, chip, &data[..n]),
                format!("truncated to {n}"),
            ),
            Edit::Write(at, bytes, what) => {
                let old = data[at..at + bytes.len()].to_vec();
                data[at..at + bytes.len()].copy_from_slice(&bytes);
                let r = check::firmware_file(kind, version, chip, data);
                data[at..at + old.len()].copy_from_slice(&old);
                (r, format!("{what} at {at:#x} = {bytes:02x?}"))
            }
        };
        match result {
            Err(_) => t.rejected += 1,
            Ok(()) => t.accepted.push(format!("{chip} {kind}-{version}: {what}")),
        }
    }
}

#[test]
fn every_real_firmware_file_is_valid_and_every_corruption_is_handled() {
    let files = files();
    assert!(
        files.len() > 100,
        "{} firmware files found under {}",
        files.len(),
        fw_root().display()
    );
    let mut contents: HashMap<PathBuf, Vec<u8>> = HashMap::new();
    let mut tally = Tally::default();
    let mut corrupted = std::collections::HashSet::new();
    for (chip, kind, version, path) in &files {
        let real = std::fs::canonicalize(path).unwrap();
        let data = contents
            .entry(real.clone())
            .or_insert_with(|| std::fs::read(&real).unwrap());
        check::firmware_file(kind, version, chip, data)
            .unwrap_or_else(|e| panic!("{}: the real file is rejected: {e}", path.display()));
        // Each distinct file once, through the first chip that loads it.
        if !corrupted.insert(real.clone()) {
            continue;
        }
        let edits = if data.starts_with(b"\x7fELF") {
            elf_edits(data, version)
        } else {
            bin_edits(data)
        };
        run(kind, version, chip, data, edits, &mut tally);
        tally.inputs += 1;
        if check::firmware_file(kind, version, chip, &[]).is_err() {
            tally.rejected += 1;
        }
    }
    println!(
        "corruptions: {} inputs over {} distinct files, {} rejected, {} accepted",
        tally.inputs,
        corrupted.len(),
        tally.rejected,
        tally.accepted.len()
    );
    // Every corruption generated breaks a structure the driver relies on: none may pass.
    assert!(tally.accepted.is_empty(), "accepted: {:#?}", tally.accepted);
    assert_eq!(tally.rejected, tally.inputs);
}
