// SPDX-License-Identifier: GPL-2.0

//! Small synthetic package files for the parsers' unit tests: each test corrupts one field of a
//! good file and expects the one rejection that field causes.

use crate::package::elf::Class;

/// Writes a little-endian 32-bit word into `buf` at `at`.
pub fn put32(buf: &mut [u8], at: usize, value: u32) {
    buf[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// Writes a little-endian 64-bit word into `buf` at `at`.
pub fn put64(buf: &mut [u8], at: usize, value: u64) {
    buf[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// Reads a little-endian 64-bit word of `buf` at `at`.
pub fn get64(buf: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(b)
}

/// A binary firmware file: the binary header, the sub-header `sub` right after it, then
/// `data`.
pub fn bin_file(sub: &[u32], data: &[u8]) -> Vec<u8> {
    let data_offset = 24 + 4 * sub.len();
    let mut f = vec![0u8; data_offset];
    let words = [
        0x10de,
        1,
        (data_offset + data.len()) as u32,
        24,
        data_offset as u32,
        data.len() as u32,
    ];
    for (i, w) in words.iter().chain(sub).enumerate() {
        put32(&mut f, 4 * i, *w);
    }
    f.extend_from_slice(data);
    f
}

/// Where the synthetic Booter's parts lie.
pub mod booter {
    /// The HS header (nine words).
    pub const HS: usize = 24;
    /// The signature parameters: fuse version 2, engine id mask 1, ucode id 3.
    pub const META: usize = 60;
    /// The word holding the patch location (0x210).
    pub const PLOC_AT: usize = 72;
    /// The word holding the signatures' extra offset (0).
    pub const PSIG_AT: usize = 76;
    /// The word holding the signature count (2).
    pub const NSIG_AT: usize = 80;
    /// The load header: OS code 0x100 bytes at 0, OS data 0x100 at 0x200, one application
    /// (code 0x100 bytes at 0x100).
    pub const LOAD: usize = 84;
    /// Two signatures of 16 bytes.
    pub const SIGS: usize = 0xa0;
    /// The data region, 0x300 bytes.
    pub const DATA: usize = 0x100;
}

/// A good synthetic Booter file (layout in [`booter`]).
pub fn booter_file() -> Vec<u8> {
    use booter::*;
    let mut f = vec![0u8; DATA + 0x300];
    for (i, w) in [0x10de, 1, 0x400, HS as u32, DATA as u32, 0x300]
        .iter()
        .enumerate()
    {
        put32(&mut f, 4 * i, *w);
    }
    let hs = [
        SIGS as u32,
        0x20,
        PLOC_AT as u32,
        PSIG_AT as u32,
        META as u32,
        12,
        NSIG_AT as u32,
        LOAD as u32,
        36,
    ];
    for (i, w) in hs.iter().enumerate() {
        put32(&mut f, HS + 4 * i, *w);
    }
    for (i, w) in [2, 1, 3].iter().enumerate() {
        put32(&mut f, META + 4 * i, *w);
    }
    put32(&mut f, PLOC_AT, 0x210);
    put32(&mut f, PSIG_AT, 0);
    put32(&mut f, NSIG_AT, 2);
    for (i, w) in [0, 0x100, 0x200, 0x100, 1, 0x100, 0x100, 0, 0]
        .iter()
        .enumerate()
    {
        put32(&mut f, LOAD + 4 * i, *w);
    }
    for (i, b) in f[SIGS..SIGS + 0x20].iter_mut().enumerate() {
        *b = 0x80 | i as u8;
    }
    for (i, b) in f[DATA..].iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    f
}

/// One section of a synthetic ELF file.
pub struct Sec<'a> {
    pub name: &'a str,
    pub kind: u32,
    pub info: u32,
    pub data: &'a [u8],
}

/// A little-endian ELF file of `class` with a null section, `sections` (their data one after
/// the other from the end of the ELF header) and the section name table, last.
pub fn elf(class: Class, sections: &[Sec<'_>]) -> Vec<u8> {
    let (ehsize, shentsize) = match class {
        Class::Elf32 => (52usize, 40usize),
        Class::Elf64 => (64, 64),
    };
    let mut f = vec![0u8; ehsize];
    f[..4].copy_from_slice(b"\x7fELF");
    f[4] = if class == Class::Elf64 { 2 } else { 1 };
    f[5] = 1;
    f[6] = 1;
    let mut placed = Vec::new();
    for s in sections {
        let at = f.len();
        f.extend_from_slice(s.data);
        f.resize(f.len().next_multiple_of(4), 0);
        placed.push(at);
    }
    let mut names = vec![0u8];
    let mut name_at = Vec::new();
    for s in sections.iter().map(|s| s.name).chain([".shstrtab"]) {
        name_at.push(names.len());
        names.extend_from_slice(s.as_bytes());
        names.push(0);
    }
    let names_at = f.len();
    f.extend_from_slice(&names);
    f.resize(f.len().next_multiple_of(8), 0);
    let shoff = f.len();
    let shnum = sections.len() + 2;
    f.resize(shoff + shnum * shentsize, 0);
    let all = sections
        .iter()
        .zip(&placed)
        .map(|(s, &at)| (s.kind, s.info, at, s.data.len()))
        .chain([(3, 0, names_at, names.len())]);
    for (i, ((kind, info, at, size), name)) in all.zip(name_at).enumerate() {
        let h = shoff + (i + 1) * shentsize;
        put32(&mut f, h, name as u32);
        put32(&mut f, h + 4, kind);
        match class {
            Class::Elf32 => {
                put32(&mut f, h + 0x10, at as u32);
                put32(&mut f, h + 0x14, size as u32);
                put32(&mut f, h + 0x1c, info);
            }
            Class::Elf64 => {
                put64(&mut f, h + 0x18, at as u64);
                put64(&mut f, h + 0x20, size as u64);
                put32(&mut f, h + 0x2c, info);
            }
        }
    }
    let (shoff_at, counts_at) = match class {
        Class::Elf32 => (0x20, 0x2e),
        Class::Elf64 => (0x28, 0x3a),
    };
    match class {
        Class::Elf32 => put32(&mut f, shoff_at, shoff as u32),
        Class::Elf64 => put64(&mut f, shoff_at, shoff as u64),
    }
    f[counts_at..counts_at + 2].copy_from_slice(&(shentsize as u16).to_le_bytes());
    f[counts_at + 2..counts_at + 4].copy_from_slice(&(shnum as u16).to_le_bytes());
    f[counts_at + 4..counts_at + 6].copy_from_slice(&((shnum - 1) as u16).to_le_bytes());
    f
}

/// Where section header `index` of the synthetic ELF file `f` starts.
pub fn shdr(f: &[u8], class: Class, index: usize) -> usize {
    match class {
        Class::Elf32 => {
            let mut b = [0u8; 4];
            b.copy_from_slice(&f[0x20..0x24]);
            u32::from_le_bytes(b) as usize + index * 40
        }
        Class::Elf64 => get64(f, 0x28) as usize + index * 64,
    }
}
