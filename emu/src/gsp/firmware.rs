// SPDX-License-Identifier: GPL-2.0

//! The sections of the firmware package's ELF files (`nvidia/<chip>/gsp/gsp-<version>.bin`
//! under the firmware root), which the booter's checks compare with what the driver hands
//! over ([`super::package`]).
//!
//! The ELF64 section table is parsed here by hand, defensively: every
//! offset and size is checked against the file before it is used.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::wire::Version;

/// Default firmware root.
pub const DEFAULT_FIRMWARE_ROOT: &str = "/usr/lib/firmware";

/// The firmware file of `version` for `chip` under `root`.
pub fn firmware_path(root: &Path, chip: &str, version: Version) -> PathBuf {
    root.join("nvidia")
        .join(chip)
        .join("gsp")
        .join(format!("gsp-{}.bin", version.name()))
}

fn read_at(file: &mut File, offset: u64, buf: &mut [u8]) -> Result<(), String> {
    file.seek(SeekFrom::Start(offset))
        .and_then(|_| file.read_exact(buf))
        .map_err(|e| format!("cannot read {} bytes at {offset:#x}: {e}", buf.len()))
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    super::wire::get_u32(b, at)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    super::wire::get_u64(b, at)
}

/// The bytes of the section called `wanted` of the ELF64 little-endian file at `path`; an
/// empty section is an error.
pub fn section(path: &Path, wanted: &str) -> Result<Vec<u8>, String> {
    let mut file = File::open(path).map_err(|e| format!("cannot open: {e}"))?;
    let file_len = file
        .metadata()
        .map_err(|e| format!("cannot examine: {e}"))?
        .len();
    let mut ehdr = [0u8; 64];
    read_at(&mut file, 0, &mut ehdr).map_err(|e| format!("ELF header: {e}"))?;
    if &ehdr[..4] != b"\x7fELF" {
        return Err("not an ELF file".to_string());
    }
    if ehdr[4] != 2 || ehdr[5] != 1 {
        return Err("not a little-endian ELF64 file".to_string());
    }
    let shoff = u64_at(&ehdr, 0x28);
    let shentsize = u64::from(u16_at(&ehdr, 0x3a));
    let shnum = u64::from(u16_at(&ehdr, 0x3c));
    let shstrndx = u64::from(u16_at(&ehdr, 0x3e));
    if shentsize < 64 || shnum == 0 || shstrndx >= shnum {
        return Err(format!(
            "bad section table (entry size {shentsize}, {shnum} entries, names in {shstrndx})"
        ));
    }
    let table_len = shentsize * shnum;
    if shoff
        .checked_add(table_len)
        .is_none_or(|end| end > file_len)
    {
        return Err(format!("section table at {shoff:#x} lies outside the file"));
    }
    let mut table = vec![0u8; table_len as usize];
    read_at(&mut file, shoff, &mut table).map_err(|e| format!("section table: {e}"))?;
    let section = |i: u64| -> (u32, u64, u64) {
        let s = &table[(i * shentsize) as usize..];
        // sh_name, sh_offset, sh_size
        (u32_at(s, 0), u64_at(s, 0x18), u64_at(s, 0x20))
    };
    let in_file = |offset: u64, size: u64| offset.checked_add(size).is_some_and(|e| e <= file_len);
    let (_, str_off, str_size) = section(shstrndx);
    if !in_file(str_off, str_size) || str_size > 16 << 20 {
        return Err("section name table lies outside the file".to_string());
    }
    let mut names = vec![0u8; str_size as usize];
    read_at(&mut file, str_off, &mut names).map_err(|e| format!("section names: {e}"))?;
    for i in 0..shnum {
        let (name, offset, size) = section(i);
        let name = name as usize;
        let Some(rest) = names.get(name..) else {
            continue;
        };
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        if &rest[..end] != wanted.as_bytes() {
            continue;
        }
        if !in_file(offset, size) {
            return Err(format!(
                "{wanted} ({size:#x} bytes at {offset:#x}) lies outside the file"
            ));
        }
        if size == 0 {
            return Err(format!("{wanted} is empty"));
        }
        let mut bytes =
            vec![0u8; usize::try_from(size).map_err(|_| format!("{wanted} is too large"))?];
        read_at(&mut file, offset, &mut bytes).map_err(|e| format!("{wanted}: {e}"))?;
        return Ok(bytes);
    }
    Err(format!("no {wanted} section"))
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A minimal ELF64 file: a null section, `.fwimage` holding `image`,
    /// and the section name table.
    pub fn fake_elf(image: &[u8]) -> Vec<u8> {
        fake_elf_with(&[(".fwimage", image)])
    }

    /// A minimal ELF64 file: a null section, `sections` in order, then the section name
    /// table.
    pub fn fake_elf_with(sections: &[(&str, &[u8])]) -> Vec<u8> {
        let mut names = vec![0u8];
        let mut name_at = Vec::new();
        for (name, _) in sections {
            name_at.push(names.len() as u32);
            names.extend_from_slice(name.as_bytes());
            names.push(0);
        }
        let table_name = names.len() as u32;
        names.extend_from_slice(b".shstrtab\0");
        let mut f = vec![0u8; 64];
        let mut placed = Vec::new();
        for (_, bytes) in sections {
            placed.push((f.len(), bytes.len()));
            f.extend_from_slice(bytes);
        }
        let names_off = f.len();
        f.extend_from_slice(&names);
        let shoff = f.len().next_multiple_of(8);
        let count = sections.len() + 2;
        f.resize(shoff + count * 64, 0);
        f[..4].copy_from_slice(b"\x7fELF");
        f[4] = 2;
        f[5] = 1;
        f[6] = 1;
        f[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        f[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        f[0x3c..0x3e].copy_from_slice(&(count as u16).to_le_bytes());
        f[0x3e..0x40].copy_from_slice(&((count - 1) as u16).to_le_bytes());
        let mut sh = |i: usize, name: u32, offset: usize, size: usize| {
            let s = shoff + i * 64;
            f[s..s + 4].copy_from_slice(&name.to_le_bytes());
            f[s + 4..s + 8].copy_from_slice(&1u32.to_le_bytes());
            f[s + 0x18..s + 0x20].copy_from_slice(&(offset as u64).to_le_bytes());
            f[s + 0x20..s + 0x28].copy_from_slice(&(size as u64).to_le_bytes());
        };
        for (i, (&(offset, size), &name)) in placed.iter().zip(&name_at).enumerate() {
            sh(i + 1, name, offset, size);
        }
        sh(count - 1, table_name, names_off, names.len());
        f
    }

    /// A fresh, empty folder under the system's temporary folder.
    pub fn temp_dir(tag: &str) -> PathBuf {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "nova-emu-{tag}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        dir
    }

    /// Installs a fake `gsp-<version>.bin` for `chip` under `root`.
    pub fn install(root: &Path, chip: &str, version: Version, image: &[u8]) {
        let path = firmware_path(root, chip, version);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, fake_elf(image)).expect("write firmware");
    }

    /// A distinctive image: a byte pattern seeded by `seed`.
    pub fn image(seed: u8, len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31) ^ seed)
            .collect()
    }

    #[test]
    fn a_section_is_read_whole() {
        let dir = temp_dir("fw-head");
        let big = image(1, 0x10100);
        install(&dir, "ga102", Version::R570_144, &big);
        let path = firmware_path(&dir, "ga102", Version::R570_144);
        assert_eq!(section(&path, ".fwimage").expect("whole"), big);
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn broken_files_are_errors_not_panics() {
        let dir = temp_dir("fw-broken");
        let path = dir.join("f.bin");
        let good = fake_elf(&image(2, 100));
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"not an elf".to_vec(), "ELF header"),
            (good[..good.len() - 10].to_vec(), "section table"),
            (
                {
                    let mut f = good.clone();
                    f[0x3e] = 9; // names in a section that does not exist
                    f
                },
                "bad section table",
            ),
            (
                {
                    let mut f = good.clone();
                    let shoff = u64_at(&f, 0x28) as usize;
                    // .fwimage size far past the end of the file
                    f[shoff + 64 + 0x20..shoff + 64 + 0x28]
                        .copy_from_slice(&u64::MAX.to_le_bytes());
                    f
                },
                "outside the file",
            ),
            (
                {
                    let mut f = good.clone();
                    let shoff = u64_at(&f, 0x28) as usize;
                    f[shoff + 64..shoff + 68].copy_from_slice(&10u32.to_le_bytes());
                    f
                },
                "no .fwimage",
            ),
        ];
        for (bytes, want) in cases {
            std::fs::write(&path, &bytes).expect("write");
            let err = section(&path, ".fwimage").expect_err(want);
            assert!(err.contains(want), "{want}: {err}");
        }
        assert!(section(&dir.join("missing"), ".fwimage").is_err());
        let _ = std::fs::remove_dir_all(dir);
    }
}
