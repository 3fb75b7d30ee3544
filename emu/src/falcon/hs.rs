// SPDX-License-Identifier: GPL-2.0

//! Heavy-secure ucode of the firmware package (`booter_load-<version>.bin`,
//! `booter_unload-<version>.bin`) on SEC2, as the model checks it: what the file says must be
//! loaded, and where, and whether the falcon holds exactly that.
//!
//! The file (all values little-endian):
//! - NVIDIA's binary header: magic 0x10de, ..., the HS header's offset (12), the image's
//!   offset (16) and size (20);
//! - the HS header (v2): the production signatures' offset and total size, the offsets of
//!   three words in the file (the signature's patch location in the image, the first
//!   signature's offset past the production signatures' start, the number of signatures), the
//!   signature parameters' offset (fuse version, engine id mask, ucode id) and the load
//!   header's offset;
//! - the load header (v2): the OS code's offset and size, the OS data's offset and size, the
//!   number of applications and, per application, its code's offset and size.
//!
//! The image is the ucode with the signature the fuse selects written at the patch location
//! (which lies in the OS data). How it must be loaded depends on the chip:
//! - Turing and GA100 (PIO): the OS code (image offset 0) non-secure at IMEM `os_code_offset`,
//!   the first application's code secure at IMEM at its own offset, each block tagged with its
//!   IMEM offset; the OS data at DMEM 0; BOOTVEC `os_code_offset`; the signature is the first
//!   (silicon in production mode has no fuse for it).
//! - GA102 on (DMA): the first application's code secure at IMEM 0, its blocks tagged with
//!   their image offset; the OS data at DMEM 0; the boot ROM registers: PARAADDR the patch
//!   location's DMEM offset, ENGIDMASK and UCODE_ID from the parameters, MOD_SEL 1 (RSA-3K);
//!   BOOTVEC the application's offset; the falcon core selected; the signature at rank
//!   `fuse_version - fuse` (the last one when the fuse reads 0).

use super::fwsec::{
    check_brom,
    check_dmem,
    check_imem, //
};
use super::{
    Falcon,
    Generation,
    BLOCK, //
};

/// An HS ucode file, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HsUcode {
    /// The image (the file's data), unsigned.
    pub image: Vec<u8>,
    pub os_code: (usize, usize),
    pub os_data: (usize, usize),
    /// The first application's code: offset and size.
    pub app0: (usize, usize),
    /// Where the signature goes in the image.
    pub patch_loc: usize,
    pub fuse_version: u32,
    pub engine_id_mask: u32,
    pub ucode_id: u32,
    pub signatures: Vec<Vec<u8>>,
}

fn u32_at(file: &[u8], at: usize, what: &str) -> Result<u32, String> {
    at.checked_add(4)
        .and_then(|end| file.get(at..end))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| {
            format!(
                "{what} at {at:#x} outside the file ({:#x} bytes)",
                file.len()
            )
        })
}

fn range(len: usize, off: usize, size: usize, what: &str) -> Result<(usize, usize), String> {
    match off.checked_add(size) {
        Some(end) if end <= len => Ok((off, size)),
        _ => Err(format!(
            "{what} {off:#x}+{size:#x} outside the image ({len:#x} bytes)"
        )),
    }
}

impl HsUcode {
    /// Parses the file; every offset is checked before use.
    pub fn parse(file: &[u8]) -> Result<HsUcode, String> {
        if u32_at(file, 0, "magic")? != 0x10de {
            return Err("no 0x10de magic".to_string());
        }
        let at = |v: u32| v as usize;
        let hs = at(u32_at(file, 12, "HS header offset")?);
        let (data_off, data_size) = (
            at(u32_at(file, 16, "data offset")?),
            at(u32_at(file, 20, "data size")?),
        );
        let image = data_off
            .checked_add(data_size)
            .and_then(|end| file.get(data_off..end))
            .ok_or_else(|| format!("image {data_off:#x}+{data_size:#x} outside the file"))?
            .to_vec();
        let field = |n: usize, what: &str| u32_at(file, hs + 4 * n, what).map(at);
        let (sig_off, sig_size) = (field(0, "signature offset")?, field(1, "signature size")?);
        let patch_loc = at(u32_at(file, field(2, "patch location")?, "patch location")?);
        let patch_sig = at(u32_at(
            file,
            field(3, "patch signature")?,
            "patch signature",
        )?);
        let meta = field(4, "signature parameters")?;
        let count = at(u32_at(
            file,
            field(6, "signature count")?,
            "signature count",
        )?);
        let load = field(7, "load header")?;
        if count == 0 || sig_size % count != 0 {
            return Err(format!(
                "{sig_size:#x} bytes of signatures do not make {count} signatures"
            ));
        }
        let sig_len = sig_size / count;
        let first = sig_off
            .checked_add(patch_sig)
            .ok_or("signature offset overflows")?;
        let signatures = (0..count)
            .map(|i| {
                let s = first + i * sig_len;
                file.get(s..s + sig_len)
                    .map(<[u8]>::to_vec)
                    .ok_or_else(|| format!("signature {i} at {s:#x} outside the file"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let l = |n: usize, what: &str| u32_at(file, load + 4 * n, what).map(at);
        let len = image.len();
        let os_code = range(
            len,
            l(0, "OS code offset")?,
            l(1, "OS code size")?,
            "OS code",
        )?;
        let os_data = range(
            len,
            l(2, "OS data offset")?,
            l(3, "OS data size")?,
            "OS data",
        )?;
        if l(4, "application count")? == 0 {
            return Err("no application".to_string());
        }
        let app0 = range(
            len,
            l(5, "app 0 offset")?,
            l(6, "app 0 size")?,
            "app 0 code",
        )?;
        if patch_loc < os_data.0 || patch_loc + sig_len > os_data.0 + os_data.1 {
            return Err(format!(
                "signature location {patch_loc:#x} outside the OS data {:#x}+{:#x}",
                os_data.0, os_data.1
            ));
        }
        Ok(HsUcode {
            image,
            os_code,
            os_data,
            app0,
            patch_loc,
            fuse_version: u32_at(file, meta, "fuse version")?,
            engine_id_mask: u32_at(file, meta + 4, "engine id mask")?,
            ucode_id: u32_at(file, meta + 8, "ucode id")?,
            signatures,
        })
    }

    /// The signature for the fuse register's value `fuse` (its highest set bit counted from 1;
    /// `None` on Turing and GA100, which have none).
    pub fn signature(&self, fuse: Option<u32>) -> Result<&[u8], String> {
        let index = match fuse {
            None => 0,
            Some(0) => self.signatures.len() - 1,
            Some(f) => self
                .fuse_version
                .checked_sub(f)
                .map_or(usize::MAX, |i| i as usize),
        };
        self.signatures
            .get(index)
            .map(Vec::as_slice)
            .ok_or_else(|| {
                format!(
                    "the fuse ({fuse:?}) selects signature {index} of {}",
                    self.signatures.len()
                )
            })
    }

    /// The signed image.
    pub fn signed(&self, fuse: Option<u32>) -> Result<Vec<u8>, String> {
        let sig = self.signature(fuse)?;
        let mut image = self.image.clone();
        image[self.patch_loc..self.patch_loc + sig.len()].copy_from_slice(sig);
        Ok(image)
    }

    /// Whether `falcon` holds this ucode, signed for `fuse`, loaded as its generation wants
    /// it; `Err` names the first difference.
    pub fn check(&self, falcon: &Falcon, fuse: Option<u32>) -> Result<(), String> {
        let image = self.signed(fuse)?;
        let (code_off, code_size) = self.os_code;
        let (app_off, app_size) = self.app0;
        let (data_off, data_size) = self.os_data;
        check_dmem(falcon, &image[data_off..data_off + data_size], 0)?;
        match falcon.generation() {
            Generation::Tu102 => {
                check_imem(
                    falcon,
                    &image[..code_size],
                    code_off,
                    (code_off / BLOCK) as u16,
                    false,
                )?;
                check_imem(
                    falcon,
                    &image[app_off..app_off + app_size],
                    app_off,
                    (app_off / BLOCK) as u16,
                    true,
                )?;
                if falcon.bootvec() as usize != code_off {
                    return Err(format!(
                        "BOOTVEC = {:#x}, the OS code starts at {code_off:#x}",
                        falcon.bootvec()
                    ));
                }
            }
            Generation::Ga102 => {
                if !falcon.falcon_core() {
                    return Err("started with the RISC-V core selected".to_string());
                }
                check_imem(
                    falcon,
                    &image[app_off..app_off + app_size],
                    0,
                    (app_off / BLOCK) as u16,
                    true,
                )?;
                check_brom(
                    falcon,
                    self.ucode_id,
                    self.engine_id_mask,
                    (self.patch_loc - data_off) as u32,
                )?;
                if falcon.bootvec() as usize != app_off {
                    return Err(format!(
                        "BOOTVEC = {:#x}, expected {app_off:#x}",
                        falcon.bootvec()
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::falcon::SEC2_BASE;

    /// A small HS file: header at 0x18, HS header at 0x40, words at 0x80, parameters at 0x90,
    /// load header at 0xa0, two 16-byte signatures at 0x100, image at 0x200 (0x600 bytes: OS
    /// code 0x100, app 0 at 0x100 (0x200), OS data at 0x300 (0x300) with the signature slot at
    /// 0x400).
    pub fn file() -> Vec<u8> {
        let mut f = vec![0u8; 0x800];
        let put =
            |f: &mut Vec<u8>, at: usize, v: u32| f[at..at + 4].copy_from_slice(&v.to_le_bytes());
        for (at, v) in [(0, 0x10de), (12, 0x40), (16, 0x200), (20, 0x600)] {
            put(&mut f, at, v);
        }
        for (n, v) in [0x100, 32, 0x80, 0x84, 0x90, 12, 0x88, 0xa0, 28]
            .into_iter()
            .enumerate()
        {
            put(&mut f, 0x40 + 4 * n, v);
        }
        for (at, v) in [(0x80, 0x400), (0x84, 0), (0x88, 2)] {
            put(&mut f, at, v);
        }
        for (at, v) in [(0x90, 2), (0x94, 1), (0x98, 3)] {
            put(&mut f, at, v);
        }
        for (n, v) in [0, 0x100, 0x300, 0x300, 1, 0x100, 0x200]
            .into_iter()
            .enumerate()
        {
            put(&mut f, 0xa0 + 4 * n, v);
        }
        f[0x100..0x110].fill(0x51);
        f[0x110..0x120].fill(0x52);
        for (i, b) in f[0x200..0x800].iter_mut().enumerate() {
            *b = (i % 251) as u8;
        }
        f
    }

    #[test]
    fn parses_the_headers() {
        let u = HsUcode::parse(&file()).unwrap();
        assert_eq!(u.os_code, (0, 0x100));
        assert_eq!(u.app0, (0x100, 0x200));
        assert_eq!(u.os_data, (0x300, 0x300));
        assert_eq!(u.patch_loc, 0x400);
        assert_eq!((u.fuse_version, u.engine_id_mask, u.ucode_id), (2, 1, 3));
        assert_eq!(u.signatures, vec![vec![0x51; 16], vec![0x52; 16]]);
    }

    #[test]
    fn the_fuse_picks_the_signature() {
        let u = HsUcode::parse(&file()).unwrap();
        assert_eq!(u.signature(None).unwrap(), &[0x51; 16]);
        assert_eq!(u.signature(Some(0)).unwrap(), &[0x52; 16]);
        assert_eq!(u.signature(Some(2)).unwrap(), &[0x51; 16]);
        assert_eq!(u.signature(Some(1)).unwrap(), &[0x52; 16]);
        assert!(u.signature(Some(3)).is_err());
    }

    #[test]
    fn rejects_what_lies_outside() {
        let cut =
            |f: &mut Vec<u8>, at: usize, v: u32| f[at..at + 4].copy_from_slice(&v.to_le_bytes());
        for (at, v, why) in [
            (0, 0x10df, "magic"),
            (12, 0x7fff_0000, "HS header"),
            (20, 0x700, "image"),
            (0x88, 3, "signatures"),
            (0xa4, 0x800, "OS code"),
            (0xb0, 0, "application"),
            (0x80, 0x5f8, "signature location"),
        ] {
            let mut f = file();
            cut(&mut f, at, v);
            assert!(HsUcode::parse(&f).is_err(), "{why} accepted");
        }
    }

    /// Loads the signed image as the driver does on `generation`.
    fn load(u: &HsUcode, generation: Generation) -> Falcon {
        let mut f = Falcon::new("SEC2", SEC2_BASE, generation);
        let image = u
            .signed(if generation == Generation::Tu102 {
                None
            } else {
                Some(2)
            })
            .unwrap();
        f.dmem_mut()[..0x300].copy_from_slice(&image[0x300..0x600]);
        match generation {
            Generation::Tu102 => {
                f.load_imem(0, &image[..0x100], false).unwrap();
                f.load_imem(0x100, &image[0x100..0x300], true).unwrap();
                f.write(crate::falcon::BOOTVEC, 0);
            }
            Generation::Ga102 => {
                f.load_imem_tagged(0, &image[0x100..0x300], true, 1)
                    .unwrap();
                for (reg, v) in [
                    (crate::falcon::MOD_SEL, 1),
                    (crate::falcon::BROM_UCODE_ID, 3),
                    (crate::falcon::BROM_ENGIDMASK, 1),
                    (crate::falcon::BROM_PARAADDR, 0x100),
                    (crate::falcon::BCR_CTRL, 0),
                    (crate::falcon::BOOTVEC, 0x100),
                ] {
                    f.write(reg, v);
                }
            }
        }
        f
    }

    #[test]
    fn checks_both_loads_byte_for_byte() {
        let u = HsUcode::parse(&file()).unwrap();
        for g in [Generation::Tu102, Generation::Ga102] {
            let fuse = if g == Generation::Tu102 {
                None
            } else {
                Some(2)
            };
            let mut f = load(&u, g);
            u.check(&f, fuse).unwrap();
            // The other signature is refused, and so is one byte of DMEM changed.
            let other = if g == Generation::Tu102 {
                Some(0)
            } else {
                Some(1)
            };
            assert!(u.check(&f, other).unwrap_err().contains("DMEM differs"));
            f.dmem_mut()[0x10] ^= 1;
            assert!(u
                .check(&f, fuse)
                .unwrap_err()
                .contains("DMEM differs at 0x10"));
        }
    }
}
