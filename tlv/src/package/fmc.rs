// SPDX-License-Identifier: GPL-2.0

//! The FMC image of Hopper and Blackwell (`fmc-<version>.bin`): an ELF32 file with four
//! sections, `hash` (the image's SHA-384), `signature`, `publickey` and `image`, each with its
//! CRC32 in its header's `sh_info` (nouveau's `gh100_gsp_oneinit` reads them so).

use std::ops::Range;

use super::{
    crc32::crc32,
    elf::{
        Class,
        Elf, //
    },
    len64,
    Invalid, //
};

/// Section type of the data sections (`SHT_PROGBITS`).
const SHT_PROGBITS: u32 = 1;

/// Size of a SHA-384 hash.
const HASH_SIZE: usize = 48;

/// Largest public key and signature nova-core takes (RSA-3072; ECDSA P-384 ones are shorter).
const MAX_KEY_SIZE: usize = 384;

/// A parsed FMC image: its four sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fmc {
    pub hash: Range<usize>,
    pub signature: Range<usize>,
    pub public_key: Range<usize>,
    pub image: Range<usize>,
}

impl Fmc {
    /// Parses an FMC image.
    pub fn parse(file: &[u8]) -> Result<Fmc, Invalid> {
        let elf = Elf::parse(file, Class::Elf32)?;
        for s in elf.sections() {
            if s.kind != SHT_PROGBITS || s.info == 0 {
                continue;
            }
            let computed = crc32(file.get(s.bytes.clone()).unwrap_or_default());
            if computed != s.info {
                return Err(Invalid::CrcMismatch {
                    section: s.shown_name(),
                    stored: s.info,
                    computed,
                });
            }
        }
        let hash = elf.require("hash")?.bytes.clone();
        let signature = elf.require("signature")?.bytes.clone();
        let public_key = elf.require("publickey")?.bytes.clone();
        let image = elf.require("image")?.bytes.clone();
        if hash.len() != HASH_SIZE {
            return Err(Invalid::BadValue {
                what: "hash section size".into(),
                value: len64(hash.len()),
                why: "a SHA-384 hash is 48 bytes",
            });
        }
        for (what, r) in [
            ("signature section size", &signature),
            ("publickey section size", &public_key),
        ] {
            if r.is_empty() || r.len() > MAX_KEY_SIZE {
                return Err(Invalid::BadValue {
                    what: what.into(),
                    value: len64(r.len()),
                    why: "not 1 to 384 bytes (RSA-3072 at most)",
                });
            }
        }
        if image.is_empty() {
            return Err(Invalid::BadValue {
                what: "image section size".into(),
                value: 0,
                why: "the image is empty",
            });
        }
        Ok(Fmc {
            hash,
            signature,
            public_key,
            image,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        elf,
        Sec, //
    };

    fn fmc(hash: &[u8], sig: &[u8], key: &[u8], image: &[u8], crc_ok: bool) -> Vec<u8> {
        let crc = |d: &[u8]| crc32(d) ^ u32::from(!crc_ok);
        elf(
            Class::Elf32,
            &[
                Sec {
                    name: "hash",
                    kind: 1,
                    info: crc(hash),
                    data: hash,
                },
                Sec {
                    name: "signature",
                    kind: 1,
                    info: crc(sig),
                    data: sig,
                },
                Sec {
                    name: "publickey",
                    kind: 1,
                    info: crc(key),
                    data: key,
                },
                Sec {
                    name: "image",
                    kind: 1,
                    info: crc(image),
                    data: image,
                },
            ],
        )
    }

    fn bad_value(r: Result<Fmc, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::BadValue { what, .. }) if what == field)
    }

    #[test]
    fn parses_a_good_file() {
        let f = fmc(&[1; 48], &[2; 96], &[3; 97], &[4; 1000], true);
        let m = Fmc::parse(&f).expect("parse");
        assert_eq!(&f[m.hash], &[1; 48]);
        assert_eq!(&f[m.signature], &[2; 96]);
        assert_eq!(&f[m.public_key], &[3; 97]);
        assert_eq!(&f[m.image], &[4; 1000]);
    }

    #[test]
    fn rejects_wrong_crc() {
        let f = fmc(&[1; 48], &[2; 96], &[3; 97], &[4; 1000], false);
        assert!(matches!(
            Fmc::parse(&f),
            Err(Invalid::CrcMismatch { section, .. }) if section == "hash"
        ));
    }

    #[test]
    fn rejects_missing_section() {
        let f = elf(
            Class::Elf32,
            &[Sec {
                name: "image",
                kind: 1,
                info: 0,
                data: &[1; 4],
            }],
        );
        assert_eq!(Fmc::parse(&f), Err(Invalid::MissingSection("hash".into())));
    }

    #[test]
    fn rejects_hash_of_wrong_size() {
        let f = fmc(&[1; 32], &[2; 96], &[3; 97], &[4; 8], true);
        assert!(bad_value(Fmc::parse(&f), "hash section size"));
    }

    #[test]
    fn rejects_oversized_signature() {
        let f = fmc(&[1; 48], &[2; 385], &[3; 97], &[4; 8], true);
        assert!(bad_value(Fmc::parse(&f), "signature section size"));
    }

    #[test]
    fn rejects_oversized_public_key() {
        let f = fmc(&[1; 48], &[2; 384], &[3; 512], &[4; 8], true);
        assert!(bad_value(Fmc::parse(&f), "publickey section size"));
    }

    #[test]
    fn rejects_empty_public_key() {
        let f = fmc(&[1; 48], &[2; 96], &[], &[4; 8], true);
        assert!(bad_value(Fmc::parse(&f), "publickey section size"));
    }

    #[test]
    fn rejects_empty_image() {
        let f = fmc(&[1; 48], &[2; 96], &[3; 97], &[], true);
        assert!(bad_value(Fmc::parse(&f), "image section size"));
    }

    #[test]
    fn rejects_elf64_file() {
        let f = elf(Class::Elf64, &[]);
        assert!(bad_value(Fmc::parse(&f), "ELF class"));
    }
}
