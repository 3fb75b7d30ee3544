// SPDX-License-Identifier: GPL-2.0

//! The GSP-RM image (`gsp-<version>.bin`): an ELF64 file whose `.fwimage` section is the image
//! the GSP runs, `.fwversion` its version (a NUL-terminated string), one `.fwsignature_<family>`
//! section per chip family it is signed for, and (from 570.144 on) a `.note.gnu.build-id`
//! note.

use std::ops::Range;

use super::{
    elf::{
        Class,
        Elf, //
    },
    region,
    words,
    Invalid, //
};

/// The note type of a GNU build id.
const NT_GNU_BUILD_ID: u32 = 3;

/// Longest `.fwversion` taken, terminating NUL included.
const MAX_VERSION: usize = 32;

/// A parsed GSP-RM image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GspImage {
    /// `.fwimage`, not empty.
    pub fwimage: Range<usize>,
    /// `.fwversion`, without its NUL.
    pub version: String,
    /// The signature section asked for, not empty.
    pub signature: Range<usize>,
    /// The build id (the note's descriptor), if the file has the note.
    pub build_id: Option<Range<usize>>,
}

impl GspImage {
    /// Parses a GSP-RM image, with the signature section `signature` (the chip family's).
    pub fn parse(file: &[u8], signature: &str) -> Result<GspImage, Invalid> {
        let elf = Elf::parse(file, Class::Elf64)?;
        let fwimage = elf.require(".fwimage")?.bytes.clone();
        if fwimage.is_empty() {
            return Err(Invalid::BadValue {
                what: ".fwimage size".into(),
                value: 0,
                why: "the image is empty",
            });
        }
        let sig = elf.require(signature)?.bytes.clone();
        if sig.is_empty() {
            return Err(Invalid::BadValue {
                what: format!("{signature} size"),
                value: 0,
                why: "the signature is empty",
            });
        }
        let version = version(file.get(elf.require(".fwversion")?.bytes.clone()))?;
        let build_id = elf
            .find(".note.gnu.build-id")?
            .map(|s| build_id(file, &s.bytes))
            .transpose()?;
        Ok(GspImage {
            fwimage,
            version,
            signature: sig,
            build_id,
        })
    }
}

/// The version string of the `.fwversion` bytes: printable ASCII, then one NUL.
fn version(raw: Option<&[u8]>) -> Result<String, Invalid> {
    let raw = raw.unwrap_or_default();
    let bad = |why| Invalid::BadValue {
        what: ".fwversion size".into(),
        value: super::len64(raw.len()),
        why,
    };
    if raw.len() > MAX_VERSION {
        return Err(bad("too long for a version string"));
    }
    let text = raw
        .strip_suffix(&[0])
        .filter(|t| !t.is_empty() && t.iter().all(|c| (0x20..0x7f).contains(c)))
        .ok_or_else(|| bad("not a NUL-terminated printable string"))?;
    Ok(String::from_utf8_lossy(text).into_owned())
}

/// The descriptor of the GNU build-id note occupying `note` (a range of `file`): a header of
/// three words (name size, descriptor size, type), the name `GNU\0`, then the descriptor.
fn build_id(file: &[u8], note: &Range<usize>) -> Result<Range<usize>, Invalid> {
    let bytes = file.get(note.clone()).unwrap_or_default();
    let [name_size, desc_size, kind] = words::<3>(bytes, 0, "build-id note header")?;
    if kind != NT_GNU_BUILD_ID || name_size != 4 || bytes.get(12..16) != Some(b"GNU\0") {
        return Err(Invalid::BadValue {
            what: "build-id note type".into(),
            value: kind.into(),
            why: "not a GNU build id",
        });
    }
    if desc_size == 0 {
        return Err(Invalid::BadValue {
            what: "build id size".into(),
            value: 0,
            why: "the build id is empty",
        });
    }
    let id = region(
        16,
        desc_size.into(),
        bytes.len(),
        "build id",
        "build-id note",
    )?;
    Ok(note.start + id.start..note.start + id.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        elf,
        put64,
        shdr,
        Sec, //
    };

    const SIG: &str = ".fwsignature_ga10x";

    fn note(kind: u32, id: &[u8]) -> Vec<u8> {
        let mut n = Vec::new();
        n.extend_from_slice(&4u32.to_le_bytes());
        n.extend_from_slice(&(id.len() as u32).to_le_bytes());
        n.extend_from_slice(&kind.to_le_bytes());
        n.extend_from_slice(b"GNU\0");
        n.extend_from_slice(id);
        n
    }

    fn image(fwimage: &[u8], version: &[u8], sig: &str, note: Option<&[u8]>) -> Vec<u8> {
        let mut s = vec![
            Sec {
                name: ".fwimage",
                kind: 1,
                info: 0,
                data: fwimage,
            },
            Sec {
                name: ".fwversion",
                kind: 1,
                info: 0,
                data: version,
            },
            Sec {
                name: sig,
                kind: 1,
                info: 0,
                data: &[0x5a; 64],
            },
        ];
        if let Some(n) = note {
            s.push(Sec {
                name: ".note.gnu.build-id",
                kind: 7,
                info: 0,
                data: n,
            });
        }
        elf(Class::Elf64, &s)
    }

    fn good() -> Vec<u8> {
        image(
            &[0xaa; 256],
            b"570.144\0",
            SIG,
            Some(&note(3, &[0x1e, 0x56, 0x54, 0xb5])),
        )
    }

    fn bad_value(r: Result<GspImage, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::BadValue { what, .. }) if what == field)
    }

    #[test]
    fn parses_a_good_file() {
        let f = good();
        let g = GspImage::parse(&f, SIG).expect("parse");
        assert_eq!(g.fwimage, 64..64 + 256);
        assert_eq!(g.version, "570.144");
        assert_eq!(&f[g.signature.clone()], &[0x5a; 64]);
        let id = g.build_id.expect("build id");
        assert_eq!(&f[id], &[0x1e, 0x56, 0x54, 0xb5]);
    }

    #[test]
    fn takes_a_file_without_build_id() {
        let f = image(&[1; 8], b"535.113.01\0", SIG, None);
        let g = GspImage::parse(&f, SIG).expect("parse");
        assert_eq!(g.build_id, None);
        assert_eq!(g.version, "535.113.01");
    }

    #[test]
    fn rejects_missing_fwimage() {
        let mut f = good();
        // Rename `.fwimage` to `.fwimagf` in the name table.
        let names = crate::testing::get64(&f, shdr(&f, Class::Elf64, 5) + 0x18) as usize;
        f[names + 8] = b'f';
        assert_eq!(
            GspImage::parse(&f, SIG),
            Err(Invalid::MissingSection(".fwimage".into()))
        );
    }

    #[test]
    fn rejects_empty_fwimage() {
        let mut f = good();
        let h = shdr(&f, Class::Elf64, 1);
        put64(&mut f, h + 0x20, 0);
        assert!(bad_value(GspImage::parse(&f, SIG), ".fwimage size"));
    }

    #[test]
    fn rejects_missing_signature_of_the_family() {
        assert_eq!(
            GspImage::parse(&good(), ".fwsignature_tu10x"),
            Err(Invalid::MissingSection(".fwsignature_tu10x".into()))
        );
    }

    #[test]
    fn rejects_empty_signature() {
        let mut f = good();
        let h = shdr(&f, Class::Elf64, 3);
        put64(&mut f, h + 0x20, 0);
        assert!(bad_value(
            GspImage::parse(&f, SIG),
            ".fwsignature_ga10x size"
        ));
    }

    #[test]
    fn rejects_missing_fwversion() {
        let f = elf(
            Class::Elf64,
            &[
                Sec {
                    name: ".fwimage",
                    kind: 1,
                    info: 0,
                    data: &[1; 4],
                },
                Sec {
                    name: SIG,
                    kind: 1,
                    info: 0,
                    data: &[1; 4],
                },
            ],
        );
        assert_eq!(
            GspImage::parse(&f, SIG),
            Err(Invalid::MissingSection(".fwversion".into()))
        );
    }

    #[test]
    fn rejects_unterminated_fwversion() {
        let f = image(&[1; 8], b"570.1444", SIG, None);
        assert!(bad_value(GspImage::parse(&f, SIG), ".fwversion size"));
    }

    #[test]
    fn rejects_unprintable_fwversion() {
        let f = image(&[1; 8], b"570\n144\0", SIG, None);
        assert!(bad_value(GspImage::parse(&f, SIG), ".fwversion size"));
    }

    #[test]
    fn rejects_long_fwversion() {
        let f = image(&[1; 8], &[b'5'; 40], SIG, None);
        assert!(bad_value(GspImage::parse(&f, SIG), ".fwversion size"));
    }

    #[test]
    fn rejects_note_of_another_type() {
        let f = image(&[1; 8], b"570.144\0", SIG, Some(&note(1, &[1, 2, 3, 4])));
        assert!(bad_value(GspImage::parse(&f, SIG), "build-id note type"));
    }

    #[test]
    fn rejects_truncated_note() {
        let f = image(&[1; 8], b"570.144\0", SIG, Some(&[4, 0, 0, 0, 20, 0]));
        assert!(matches!(
            GspImage::parse(&f, SIG),
            Err(Invalid::Truncated { what, .. }) if what == "build-id note header"
        ));
    }

    #[test]
    fn rejects_build_id_past_the_note() {
        let mut n = note(3, &[1, 2, 3, 4]);
        n[4] = 20;
        let f = image(&[1; 8], b"570.144\0", SIG, Some(&n));
        assert!(matches!(
            GspImage::parse(&f, SIG),
            Err(Invalid::OutOfRange { what, .. }) if what == "build id"
        ));
    }

    #[test]
    fn rejects_empty_build_id() {
        let f = image(&[1; 8], b"570.144\0", SIG, Some(&note(3, &[])));
        assert!(bad_value(GspImage::parse(&f, SIG), "build id size"));
    }
}
