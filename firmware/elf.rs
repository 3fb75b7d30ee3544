// SPDX-License-Identifier: GPL-2.0

//! ELF section tables of firmware images (`gsp-<version>.bin` is ELF64, `fmc-<version>.bin`
//! ELF32).
//!
//! [`Sections`] is the trusted result of validating an image's ELF header and section table:
//! every section it lists has a name, and its bytes lie inside the file.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use zerocopy::FromBytes;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

use super::error::FwError;

/// ELF identification bytes.
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";
const ELFCLASS32: u8 = 1;
const ELFCLASS64: u8 = 2;
const ELFDATA2LSB: u8 = 1;
/// Section type of sections that occupy no bytes in the file.
const SHT_NOBITS: u32 = 8;
/// Longest section name the driver keeps; longer names are rejected.
pub(crate) const MAX_NAME: usize = 32;
/// Most sections an image may have (the real ones have 14 or fewer).
const MAX_SECTIONS: usize = 24;

/// The ELF64 file header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Elf64Hdr {
    ident: [u8; 16],
    type_: u16,
    machine: u16,
    version: u32,
    entry: u64,
    phoff: u64,
    shoff: u64,
    flags: u32,
    ehsize: u16,
    phentsize: u16,
    phnum: u16,
    shentsize: u16,
    shnum: u16,
    shstrndx: u16,
}

/// The ELF64 section header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Elf64Shdr {
    name: u32,
    type_: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    addralign: u64,
    entsize: u64,
}

/// The ELF32 file header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Elf32Hdr {
    ident: [u8; 16],
    type_: u16,
    machine: u16,
    version: u32,
    entry: u32,
    phoff: u32,
    shoff: u32,
    flags: u32,
    ehsize: u16,
    phentsize: u16,
    phnum: u16,
    shentsize: u16,
    shnum: u16,
    shstrndx: u16,
}

/// The ELF32 section header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Elf32Shdr {
    name: u32,
    type_: u32,
    flags: u32,
    addr: u32,
    offset: u32,
    size: u32,
    link: u32,
    info: u32,
    addralign: u32,
    entsize: u32,
}

/// One section of a validated image.
#[derive(Clone, Copy, Default)]
pub(crate) struct Section {
    name: [u8; MAX_NAME],
    name_len: usize,
    /// Offset of the section's bytes in the file.
    pub(crate) offset: usize,
    /// Size of the section's bytes in the file.
    pub(crate) size: usize,
}

impl Section {
    /// The section's name.
    pub(crate) fn name(&self) -> &[u8] {
        &self.name[..self.name_len]
    }
}

/// The validated section table of an ELF image (at most [`MAX_SECTIONS`], kept in place: no
/// allocation).
pub(crate) struct Sections {
    sections: [Section; MAX_SECTIONS],
    count: usize,
}

impl Sections {
    /// The sections, in table order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Section> {
        self.sections[..self.count].iter()
    }

    /// Looks a section up by name.
    pub(crate) fn find(&self, name: &str) -> Option<&Section> {
        self.iter().find(|s| s.name() == name.as_bytes())
    }
}

/// Header fields common to both ELF classes, widened to `u64`.
struct Header {
    shoff: u64,
    shentsize: u64,
    shnum: u64,
    shstrndx: u64,
    is64: bool,
}

/// Section header fields common to both classes.
struct RawSection {
    name: u64,
    type_: u32,
    offset: u64,
    size: u64,
}

fn to_usize(v: u64, what: &'static str) -> Result<usize, FwError> {
    usize::try_from(v).map_err(|_| FwError::OutOfFile(what))
}

/// Checks that `offset..offset + size` lies inside a file of `len` bytes.
fn in_file(
    offset: u64,
    size: u64,
    len: usize,
    what: &'static str,
) -> Result<(usize, usize), FwError> {
    let end = offset.checked_add(size).ok_or(FwError::OutOfFile(what))?;
    if end > len as u64 {
        return Err(FwError::OutOfFile(what));
    }
    Ok((to_usize(offset, what)?, to_usize(size, what)?))
}

/// Reads the ELF header (a helper of the [`Sections`] validator).
fn read_header(file: &[u8]) -> Result<Header, FwError> {
    let ident = file.get(..16).ok_or(FwError::Truncated("ELF header"))?;
    if !ident.starts_with(ELF_MAGIC) {
        return Err(FwError::BadMagic);
    }
    if ident[5] != ELFDATA2LSB {
        return Err(FwError::Malformed("not a little-endian ELF file"));
    }
    let truncated = FwError::Truncated("ELF header");
    match ident[4] {
        ELFCLASS64 => {
            let (h, _) = Elf64Hdr::read_from_prefix(file).map_err(|_| truncated)?;
            Ok(Header {
                shoff: h.shoff,
                shentsize: h.shentsize.into(),
                shnum: h.shnum.into(),
                shstrndx: h.shstrndx.into(),
                is64: true,
            })
        }
        ELFCLASS32 => {
            let (h, _) = Elf32Hdr::read_from_prefix(file).map_err(|_| truncated)?;
            Ok(Header {
                shoff: h.shoff.into(),
                shentsize: h.shentsize.into(),
                shnum: h.shnum.into(),
                shstrndx: h.shstrndx.into(),
                is64: false,
            })
        }
        _ => Err(FwError::Malformed("unknown ELF class")),
    }
}

/// Reads section header `index` (a helper of the [`Sections`] validator).
fn read_section(file: &[u8], hdr: &Header, index: u64) -> Result<RawSection, FwError> {
    let off = index
        .checked_mul(hdr.shentsize)
        .and_then(|o| o.checked_add(hdr.shoff))
        .ok_or(FwError::OutOfFile("section header table"))?;
    let off = to_usize(off, "section header table")?;
    let at = file
        .get(off..)
        .ok_or(FwError::OutOfFile("section header table"))?;
    let err = FwError::OutOfFile("section header table");
    if hdr.is64 {
        let (s, _) = Elf64Shdr::read_from_prefix(at).map_err(|_| err)?;
        Ok(RawSection {
            name: s.name.into(),
            type_: s.type_,
            offset: s.offset,
            size: s.size,
        })
    } else {
        let (s, _) = Elf32Shdr::read_from_prefix(at).map_err(|_| err)?;
        Ok(RawSection {
            name: s.name.into(),
            type_: s.type_,
            offset: s.offset.into(),
            size: s.size.into(),
        })
    }
}

impl Validator<&Untrusted<[u8]>> for Sections {
    type Err = FwError;

    fn validate(file: &[u8]) -> Result<Sections, FwError> {
        let len = file.len();
        let hdr = read_header(file)?;
        let expected_entsize = if hdr.is64 { 64 } else { 40 };
        if hdr.shentsize != expected_entsize {
            return Err(FwError::Malformed("unexpected section header size"));
        }
        let shnum = to_usize(hdr.shnum, "section header table")?;
        if shnum == 0 || shnum > MAX_SECTIONS {
            return Err(FwError::Malformed("section count out of range"));
        }
        if hdr.shstrndx >= hdr.shnum {
            return Err(FwError::Malformed("section name table index out of range"));
        }
        let table_size = hdr.shnum * hdr.shentsize;
        in_file(hdr.shoff, table_size, len, "section header table")?;

        let strtab = read_section(file, &hdr, hdr.shstrndx)?;
        let (str_off, str_size) = in_file(strtab.offset, strtab.size, len, "section name table")?;
        let names = file
            .get(str_off..str_off + str_size)
            .ok_or(FwError::OutOfFile("section name table"))?;

        let mut out = Sections {
            sections: [Section::default(); MAX_SECTIONS],
            count: 0,
        };
        for i in 0..hdr.shnum {
            let raw = read_section(file, &hdr, i)?;
            let name_off = to_usize(raw.name, "section name")?;
            let tail = names
                .get(name_off..)
                .ok_or(FwError::OutOfFile("section name"))?;
            let name_len = tail
                .iter()
                .position(|&b| b == 0)
                .ok_or(FwError::Malformed("section name not terminated"))?;
            if name_len > MAX_NAME {
                return Err(FwError::Malformed("section name too long"));
            }
            let (offset, size) = if raw.type_ == SHT_NOBITS {
                (0, 0)
            } else {
                in_file(raw.offset, raw.size, len, "section")?
            };
            // `in_file` checked that `offset + size` does not overflow.
            let end = offset + size;
            if size > 0
                && out
                    .iter()
                    .any(|o| o.size > 0 && offset < o.offset + o.size && o.offset < end)
            {
                return Err(FwError::Malformed("sections overlap"));
            }
            let slot = out
                .sections
                .get_mut(out.count)
                .ok_or(FwError::Malformed("section count out of range"))?;
            slot.name[..name_len].copy_from_slice(&tail[..name_len]);
            *slot = Section {
                name_len,
                offset,
                size,
                ..*slot
            };
            out.count += 1;
        }
        Ok(out)
    }
}
