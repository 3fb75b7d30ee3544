// SPDX-License-Identifier: GPL-2.0

//! The firmware package's files the FSP checks a chain of trust against, for one chip of
//! version 570.144 (the only one with Hopper and Blackwell support): the FMC
//! (`fmc-570.144.bin`), GSP-RM's RISC-V bootloader (`bootloader-570.144.bin`) and GSP-RM's
//! image with its family's signature (`gsp-570.144.bin`, read when first needed).
//!
//! The FMC file is a strict ELF32: its sections `image` (what the COT's
//! `gspFmcSysmemOffset` must hold), `hash` (48 bytes, SHA-384), `publickey` and `signature`
//! (the family's sizes: 384 each on GH100, 97 and 96 on Blackwell). Every offset and size is
//! checked against the file before it is used.

use std::path::Path;

use super::family::Family;
use crate::gsp::firmware::firmware_path;
use crate::gsp::package::{
    GspImage,
    RiscvBootloader, //
};
use crate::gsp::wire::Version;

/// The hash's size (SHA-384).
pub const HASH_SIZE: usize = 48;

/// The FMC's sections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fmc {
    pub image: Vec<u8>,
    pub hash: Vec<u8>,
    pub public_key: Vec<u8>,
    pub signature: Vec<u8>,
}

fn u16_at(b: &[u8], at: usize) -> Option<usize> {
    b.get(at..at + 2)
        .map(|x| usize::from(u16::from_le_bytes([x[0], x[1]])))
}

fn u32_at(b: &[u8], at: usize) -> Option<usize> {
    b.get(at..at + 4)
        .and_then(|x| usize::try_from(u32::from_le_bytes([x[0], x[1], x[2], x[3]])).ok())
}

impl Fmc {
    /// Parses `fmc-<version>.bin` of `family`.
    pub fn parse(file: &[u8], family: Family) -> Result<Fmc, String> {
        if file.get(..4) != Some(b"\x7fELF") || file.get(4..6) != Some(&[1, 1]) {
            return Err("not a little-endian ELF32 file".to_string());
        }
        let cut = || "ELF header cut short".to_string();
        let shoff = u32_at(file, 0x20).ok_or_else(cut)?;
        let shentsize = u16_at(file, 0x2e).ok_or_else(cut)?;
        let shnum = u16_at(file, 0x30).ok_or_else(cut)?;
        let shstrndx = u16_at(file, 0x32).ok_or_else(cut)?;
        if shentsize < 40 || shstrndx >= shnum {
            return Err(format!(
                "bad section table (entry size {shentsize}, {shnum} entries, names in {shstrndx})"
            ));
        }
        let table = file
            .get(shoff..shoff.saturating_add(shentsize * shnum))
            .ok_or_else(|| format!("section table at {shoff:#x} lies outside the file"))?;
        let header = |i: usize| -> Result<(usize, &[u8]), String> {
            let s = &table[i * shentsize..];
            let (name, offset, size) = (
                u32_at(s, 0).ok_or_else(cut)?,
                u32_at(s, 16).ok_or_else(cut)?,
                u32_at(s, 20).ok_or_else(cut)?,
            );
            let bytes = file
                .get(offset..offset.saturating_add(size))
                .ok_or_else(|| {
                    format!("section {i} ({size:#x} bytes at {offset:#x}) lies outside the file")
                })?;
            Ok((name, bytes))
        };
        let (_, names) = header(shstrndx)?;
        let find = |wanted: &str| -> Result<Vec<u8>, String> {
            for i in 0..shnum {
                let (name, bytes) = header(i)?;
                let Some(rest) = names.get(name..) else {
                    continue;
                };
                let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
                if &rest[..end] == wanted.as_bytes() {
                    return Ok(bytes.to_vec());
                }
            }
            Err(format!("no {wanted} section"))
        };
        let fmc = Fmc {
            image: find("image")?,
            hash: find("hash")?,
            public_key: find("publickey")?,
            signature: find("signature")?,
        };
        let (key, sig) = family.key_and_signature_sizes();
        for (name, got, want) in [
            ("hash", fmc.hash.len(), HASH_SIZE),
            ("publickey", fmc.public_key.len(), key),
            ("signature", fmc.signature.len(), sig),
        ] {
            if got != want {
                return Err(format!(
                    "{name} has {got} bytes, {} wants {want}",
                    family.name()
                ));
            }
        }
        if fmc.image.is_empty() {
            return Err("image is empty".to_string());
        }
        Ok(fmc)
    }
}

/// What the FSP checks a chain of trust against.
pub struct FspPackage {
    pub fmc: Fmc,
    pub bootloader: RiscvBootloader,
    /// GSP-RM's `.fwimage` and the family's signature section.
    pub gsp: GspImage,
}

impl FspPackage {
    /// The version the FSP chain boots.
    pub const VERSION: Version = Version::R570_144;

    /// Reads the FMC and the bootloader of `chip` under `root`.
    pub fn load(root: &Path, chip: &str, family: Family) -> Result<FspPackage, String> {
        let v = Self::VERSION.name();
        let dir = root.join("nvidia").join(chip).join("gsp");
        let read = |name: &str| {
            let path = dir.join(format!("{name}-{v}.bin"));
            std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
        };
        let fmc = read("fmc")
            .and_then(|f| Fmc::parse(&f, family).map_err(|e| format!("fmc-{v}.bin: {e}")))?;
        let bootloader = read("bootloader").and_then(|f| {
            RiscvBootloader::parse(&f).map_err(|e| format!("bootloader-{v}.bin: {e}"))
        })?;
        Ok(FspPackage {
            fmc,
            bootloader,
            gsp: GspImage::new(
                firmware_path(root, chip, Self::VERSION),
                Ok(family.signature_section()),
            ),
        })
    }
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// An FMC file as NVIDIA's are laid out: a null section, the names, then `hash`,
    /// `signature`, `publickey` and `image`.
    pub fn fake_fmc(fmc: &Fmc) -> Vec<u8> {
        let names = b"\0.shstrtab\0hash\0signature\0publickey\0image\0";
        let sections: [(u32, &[u8]); 5] = [
            (1, names),
            (11, &fmc.hash),
            (16, &fmc.signature),
            (26, &fmc.public_key),
            (36, &fmc.image),
        ];
        let shoff = 52;
        let mut f = vec![0u8; shoff + 6 * 40];
        f[..6].copy_from_slice(b"\x7fELF\x01\x01");
        f[6] = 1;
        f[0x20..0x24].copy_from_slice(&(shoff as u32).to_le_bytes());
        f[0x2e..0x30].copy_from_slice(&40u16.to_le_bytes());
        f[0x30..0x32].copy_from_slice(&6u16.to_le_bytes());
        f[0x32..0x34].copy_from_slice(&1u16.to_le_bytes());
        for (i, (name, bytes)) in sections.iter().enumerate() {
            let at = f.len();
            f.extend_from_slice(bytes);
            let s = shoff + (i + 1) * 40;
            f[s..s + 4].copy_from_slice(&name.to_le_bytes());
            f[s + 16..s + 20].copy_from_slice(&(at as u32).to_le_bytes());
            f[s + 20..s + 24].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        }
        f
    }

    /// FMC sections of the sizes `family` wants, each byte telling where it is.
    pub fn fmc_of(family: Family) -> Fmc {
        let (key, sig) = family.key_and_signature_sizes();
        let fill = |n: usize, salt: u8| (0..n).map(|i| (i as u8).wrapping_mul(7) ^ salt).collect();
        Fmc {
            image: fill(0x1804, 0x11),
            hash: fill(HASH_SIZE, 0x22),
            public_key: fill(key, 0x33),
            signature: fill(sig, 0x44),
        }
    }

    #[test]
    fn parses_the_sections_and_checks_the_family_sizes() {
        let fmc = fmc_of(Family::Gb20x);
        let file = fake_fmc(&fmc);
        assert_eq!(Fmc::parse(&file, Family::Gb20x), Ok(fmc));
        let e = Fmc::parse(&file, Family::Gh100).unwrap_err();
        assert_eq!(e, "publickey has 97 bytes, GH100 wants 384");
        assert!(Fmc::parse(&file[..100], Family::Gb20x).is_err());
        let mut not32 = file.clone();
        not32[4] = 2;
        assert!(Fmc::parse(&not32, Family::Gb20x)
            .unwrap_err()
            .contains("ELF32"));
    }

    /// The real files of the build root's package, where there is one.
    #[test]
    fn parses_the_real_fmc_files() {
        let Some(root) = crate::fsp::tests::real_firmware_root() else {
            return;
        };
        for (chip, family, image) in [
            ("gh100", Family::Gh100, 0x28648),
            ("gb100", Family::Gb10x, 0x30348),
            ("gb202", Family::Gb20x, 0x30a48),
        ] {
            let p = FspPackage::load(&root, chip, family).unwrap_or_else(|e| panic!("{chip}: {e}"));
            assert_eq!(p.fmc.image.len(), image, "{chip}");
        }
    }
}
