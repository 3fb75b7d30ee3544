// SPDX-License-Identifier: GPL-2.0

//! The section table of a little-endian ELF file, 32- or 64-bit: the GSP-RM image
//! (`gsp-<version>.bin`) is ELF64, the FMC image (`fmc-<version>.bin`) ELF32. Only what the
//! converter needs: each section's name, type, `sh_info` and bytes, all checked against the
//! file.

use std::ops::Range;

use super::{
    len64,
    region,
    Invalid, //
};

/// The ELF class the caller expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Elf32,
    Elf64,
}

/// Where a field lies in a header: its offset and width in bytes.
#[derive(Clone, Copy)]
struct Field(usize, usize);

/// The header layout of one ELF class.
struct Layout {
    /// `EI_CLASS` value.
    ident_class: u8,
    header_size: usize,
    e_shoff: Field,
    e_shentsize: Field,
    e_shnum: Field,
    e_shstrndx: Field,
    /// Size of a section header.
    entry_size: usize,
    sh_name: Field,
    sh_type: Field,
    sh_offset: Field,
    sh_size: Field,
    sh_info: Field,
}

const ELF32: Layout = Layout {
    ident_class: 1,
    header_size: 52,
    e_shoff: Field(0x20, 4),
    e_shentsize: Field(0x2e, 2),
    e_shnum: Field(0x30, 2),
    e_shstrndx: Field(0x32, 2),
    entry_size: 40,
    sh_name: Field(0, 4),
    sh_type: Field(4, 4),
    sh_offset: Field(0x10, 4),
    sh_size: Field(0x14, 4),
    sh_info: Field(0x1c, 4),
};

const ELF64: Layout = Layout {
    ident_class: 2,
    header_size: 64,
    e_shoff: Field(0x28, 8),
    e_shentsize: Field(0x3a, 2),
    e_shnum: Field(0x3c, 2),
    e_shstrndx: Field(0x3e, 2),
    entry_size: 64,
    sh_name: Field(0, 4),
    sh_type: Field(4, 4),
    sh_offset: Field(0x18, 8),
    sh_size: Field(0x20, 8),
    sh_info: Field(0x2c, 4),
};

/// Section types without bytes in the file.
const SHT_NULL: u32 = 0;
const SHT_NOBITS: u32 = 8;

/// One section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: Vec<u8>,
    pub kind: u32,
    pub info: u32,
    /// Its bytes in the file (empty for a section without bytes).
    pub bytes: Range<usize>,
}

impl Section {
    /// The name, for messages.
    pub fn shown_name(&self) -> String {
        String::from_utf8_lossy(&self.name).into_owned()
    }
}

/// The sections of an ELF file.
#[derive(Debug)]
pub struct Elf {
    sections: Vec<Section>,
}

/// Reads the little-endian field `f` of the header `h`, which a message calls `what`.
fn field(h: &[u8], base: u64, f: Field, what: &str) -> Result<u64, Invalid> {
    let bytes =
        f.0.checked_add(f.1)
            .and_then(|end| h.get(f.0..end))
            .ok_or_else(|| Invalid::Truncated {
                what: what.to_string(),
                at: base,
                len: len64(h.len()),
            })?;
    Ok(bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
}

/// A 32-bit field (the layouts only give 32-bit widths to these).
fn field32(h: &[u8], base: u64, f: Field, what: &str) -> Result<u32, Invalid> {
    let v = field(h, base, f, what)?;
    u32::try_from(v).map_err(|_| Invalid::BadValue {
        what: what.to_string(),
        value: v,
        why: "wider than 32 bits",
    })
}

impl Elf {
    /// Parses the section table of `file`, which must be a little-endian ELF file of `class`.
    pub fn parse(file: &[u8], class: Class) -> Result<Elf, Invalid> {
        let l = match class {
            Class::Elf32 => &ELF32,
            Class::Elf64 => &ELF64,
        };
        let ident = file.get(..16).ok_or_else(|| Invalid::Truncated {
            what: "ELF identification".into(),
            at: 0,
            len: len64(file.len()),
        })?;
        if &ident[..4] != b"\x7fELF" {
            return Err(Invalid::BadMagic {
                what: "an ELF file",
                found: format!("{:02x?}", &ident[..4]),
            });
        }
        if ident[4] != l.ident_class {
            return Err(Invalid::BadValue {
                what: "ELF class".into(),
                value: ident[4].into(),
                why: match class {
                    Class::Elf32 => "not a 32-bit ELF file",
                    Class::Elf64 => "not a 64-bit ELF file",
                },
            });
        }
        if ident[5] != 1 {
            return Err(Invalid::BadValue {
                what: "ELF data encoding".into(),
                value: ident[5].into(),
                why: "not little-endian",
            });
        }
        let header = file
            .get(..l.header_size)
            .ok_or_else(|| Invalid::Truncated {
                what: "ELF header".into(),
                at: 0,
                len: len64(file.len()),
            })?;
        let shoff = field(header, 0, l.e_shoff, "ELF header")?;
        let shentsize = field(header, 0, l.e_shentsize, "ELF header")?;
        let shnum = field(header, 0, l.e_shnum, "ELF header")?;
        let shstrndx = field(header, 0, l.e_shstrndx, "ELF header")?;
        if shentsize != len64(l.entry_size) {
            return Err(Invalid::BadValue {
                what: "section header size".into(),
                value: shentsize,
                why: "not the size of this class's section header",
            });
        }
        if shnum == 0 {
            return Err(Invalid::BadValue {
                what: "section count".into(),
                value: 0,
                why: "no section table",
            });
        }
        if shstrndx >= shnum {
            return Err(Invalid::BadValue {
                what: "section name table index".into(),
                value: shstrndx,
                why: "names a section that does not exist",
            });
        }
        // At most 0xffff entries of at most 64 bytes: the product cannot overflow.
        let table = region(
            shoff,
            shnum * shentsize,
            file.len(),
            "section header table",
            "file",
        )?;
        let table = file.get(table).unwrap_or_default();

        let mut raw = Vec::new();
        for (i, h) in table.chunks_exact(l.entry_size).enumerate() {
            let base = shoff + len64(i) * shentsize;
            let what = format!("section header {i}");
            let name = field32(h, base, l.sh_name, &what)?;
            let kind = field32(h, base, l.sh_type, &what)?;
            let offset = field(h, base, l.sh_offset, &what)?;
            let size = field(h, base, l.sh_size, &what)?;
            let info = field32(h, base, l.sh_info, &what)?;
            raw.push((name, kind, offset, size, info));
        }

        let names = usize::try_from(shstrndx)
            .ok()
            .and_then(|i| raw.get(i))
            .map(|&(_, _, offset, size, _)| (offset, size))
            .unwrap_or_default();
        let names = region(names.0, names.1, file.len(), "section name table", "file")?;
        let names = file.get(names).unwrap_or_default();

        let mut sections = Vec::new();
        for (i, &(name, kind, offset, size, info)) in raw.iter().enumerate() {
            let start = usize::try_from(name).ok().filter(|&s| s < names.len());
            let name = start
                .and_then(|s| {
                    let rest = names.get(s..)?;
                    rest.iter().position(|&b| b == 0).map(|end| &rest[..end])
                })
                .ok_or_else(|| Invalid::BadValue {
                    what: format!("name of section {i}"),
                    value: name.into(),
                    why: "not a terminated string of the section name table",
                })?;
            let shown = String::from_utf8_lossy(name);
            let bytes = if kind == SHT_NULL || kind == SHT_NOBITS {
                0..0
            } else {
                region(
                    offset,
                    size,
                    file.len(),
                    &format!("section {shown}"),
                    "file",
                )?
            };
            sections.push(Section {
                name: name.to_vec(),
                kind,
                info,
                bytes,
            });
        }
        Ok(Elf { sections })
    }

    /// Every section, in table order.
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The section named `name`, if there is exactly one; two are an error.
    pub fn find(&self, name: &str) -> Result<Option<&Section>, Invalid> {
        let mut found = self.sections.iter().filter(|s| s.name == name.as_bytes());
        let first = found.next();
        if found.next().is_some() {
            return Err(Invalid::DuplicateSection(name.to_string()));
        }
        Ok(first)
    }

    /// The section named `name`, which must exist once.
    pub fn require(&self, name: &str) -> Result<&Section, Invalid> {
        self.find(name)?
            .ok_or_else(|| Invalid::MissingSection(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        elf,
        put32,
        put64,
        shdr,
        Sec, //
    };

    fn good(class: Class) -> Vec<u8> {
        elf(
            class,
            &[
                Sec {
                    name: ".fwimage",
                    kind: 1,
                    info: 0,
                    data: &[0xaa; 100],
                },
                Sec {
                    name: ".fwversion",
                    kind: 1,
                    info: 7,
                    data: b"570.144\0",
                },
            ],
        )
    }

    fn parse64(f: &[u8]) -> Result<Elf, Invalid> {
        Elf::parse(f, Class::Elf64)
    }

    fn bad_value(r: Result<Elf, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::BadValue { what, .. }) if what == field)
    }

    #[test]
    fn parses_both_classes() {
        for class in [Class::Elf32, Class::Elf64] {
            let f = good(class);
            let e = Elf::parse(&f, class).expect("parse");
            let header = if class == Class::Elf64 { 64 } else { 52 };
            let img = e.require(".fwimage").expect("fwimage");
            assert_eq!(img.bytes, header..header + 100);
            assert_eq!(img.kind, 1);
            let v = e.require(".fwversion").expect("fwversion");
            assert_eq!(&f[v.bytes.clone()], b"570.144\0");
            assert_eq!(v.info, 7);
            assert_eq!(e.sections().len(), 4);
        }
    }

    #[test]
    fn rejects_bad_magic() {
        let mut f = good(Class::Elf64);
        f[1] = b'X';
        assert!(matches!(parse64(&f), Err(Invalid::BadMagic { .. })));
    }

    #[test]
    fn rejects_truncated_header() {
        let f = good(Class::Elf64);
        assert!(matches!(parse64(&f[..10]), Err(Invalid::Truncated { .. })));
        assert!(matches!(
            parse64(&f[..40]),
            Err(Invalid::Truncated { what, .. }) if what == "ELF header"
        ));
    }

    #[test]
    fn rejects_other_class() {
        assert!(bad_value(parse64(&good(Class::Elf32)), "ELF class"));
        assert!(bad_value(
            Elf::parse(&good(Class::Elf64), Class::Elf32),
            "ELF class"
        ));
    }

    #[test]
    fn rejects_big_endian() {
        let mut f = good(Class::Elf64);
        f[5] = 2;
        assert!(bad_value(parse64(&f), "ELF data encoding"));
    }

    #[test]
    fn rejects_wrong_section_header_size() {
        let mut f = good(Class::Elf64);
        f[0x3a] = 40;
        assert!(bad_value(parse64(&f), "section header size"));
    }

    #[test]
    fn rejects_no_sections() {
        let mut f = good(Class::Elf64);
        f[0x3c] = 0;
        assert!(bad_value(parse64(&f), "section count"));
    }

    #[test]
    fn rejects_name_table_index_out_of_range() {
        let mut f = good(Class::Elf64);
        f[0x3e] = 4;
        assert!(bad_value(parse64(&f), "section name table index"));
    }

    #[test]
    fn rejects_section_table_outside_the_file() {
        let mut f = good(Class::Elf64);
        let len = f.len() as u64;
        put64(&mut f, 0x28, len - 64);
        assert!(matches!(
            parse64(&f),
            Err(Invalid::OutOfRange { what, .. }) if what == "section header table"
        ));
    }

    #[test]
    fn rejects_section_outside_the_file() {
        let mut f = good(Class::Elf64);
        let h = shdr(&f, Class::Elf64, 1);
        put64(&mut f, h + 0x20, u64::MAX);
        assert!(matches!(
            parse64(&f),
            Err(Invalid::OutOfRange { what, .. }) if what == "section .fwimage"
        ));
    }

    #[test]
    fn rejects_name_table_outside_the_file() {
        let mut f = good(Class::Elf32);
        let h = shdr(&f, Class::Elf32, 3);
        put32(&mut f, h + 0x10, 0xffff_fff0);
        assert!(matches!(
            Elf::parse(&f, Class::Elf32),
            Err(Invalid::OutOfRange { what, .. }) if what == "section name table"
        ));
    }

    #[test]
    fn rejects_name_outside_the_name_table() {
        let mut f = good(Class::Elf64);
        let h = shdr(&f, Class::Elf64, 1);
        put32(&mut f, h, 0x1000);
        assert!(bad_value(parse64(&f), "name of section 1"));
    }

    #[test]
    fn rejects_unterminated_name() {
        let mut f = good(Class::Elf64);
        let names = shdr(&f, Class::Elf64, 3);
        let names = crate::testing::get64(&f, names + 0x18) as usize;
        // ".shstrtab\0" ends the table: overwrite its NUL.
        let end = names + b"\0.fwimage\0.fwversion\0.shstrtab".len();
        f[end] = b'x';
        assert!(bad_value(parse64(&f), "name of section 3"));
    }

    #[test]
    fn rejects_duplicate_section() {
        let f = elf(
            Class::Elf64,
            &[
                Sec {
                    name: "a",
                    kind: 1,
                    info: 0,
                    data: &[1],
                },
                Sec {
                    name: "a",
                    kind: 1,
                    info: 0,
                    data: &[2],
                },
            ],
        );
        let e = parse64(&f).expect("parse");
        assert_eq!(e.find("a"), Err(Invalid::DuplicateSection("a".into())));
    }

    #[test]
    fn reports_missing_section() {
        let f = good(Class::Elf64);
        let e = parse64(&f).expect("parse");
        assert_eq!(
            e.require(".fwsignature_ga10x"),
            Err(Invalid::MissingSection(".fwsignature_ga10x".into()))
        );
    }
}
