// SPDX-License-Identifier: GPL-2.0

//! The model's own reader of a VBIOS, written from the documentation (vbios.rst, fwsec.rst,
//! the BIT document) rather than from the builder, with which it shares no constant: the IFR
//! header, the image chain (the NPDE's length and last flag winning), the BIT and its falcon
//! data, the ucode table's entries, the FWSEC descriptor (v2, v3 and its signatures), the
//! IMEM and DMEM, and the DMEM mapper.
//!
//! Two users: the tests read the synthetic VBIOS back with it (and the real dumps where
//! present), and the falcon model reads with it the FWSEC it must expect when the PROM window
//! serves a dump (`--vbios`), since the model checks the driver and so shares no code with the
//! driver's own parser.
//!
//! A ROM it cannot walk is an error, never a panic: every read is bounds-checked.

use crate::falcon::fwsec::{
    Expected,
    Load, //
};

/// A read failure.
pub type Res<T> = Result<T, String>;

/// The byte at `at`, or an error past the end.
pub fn byte(b: &[u8], at: usize) -> Res<u8> {
    b.get(at)
        .copied()
        .ok_or_else(|| format!("byte at {at:#x} out of bounds ({:#x})", b.len()))
}

/// The `len` bytes at `at`, or an error past the end.
pub fn slice(b: &[u8], at: usize, len: usize) -> Res<&[u8]> {
    at.checked_add(len)
        .and_then(|end| b.get(at..end))
        .ok_or_else(|| format!("{len:#x} bytes at {at:#x} out of bounds ({:#x})", b.len()))
}

fn u16_at(b: &[u8], at: usize) -> Res<u16> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| format!("u16 at {at:#x} out of bounds ({:#x})", b.len()))
}

pub fn u32_at(b: &[u8], at: usize) -> Res<u32> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .ok_or_else(|| format!("u32 at {at:#x} out of bounds ({:#x})", b.len()))
}

pub fn usize_at(b: &[u8], at: usize) -> Res<usize> {
    u32_at(b, at).map(|v| usize::try_from(v).expect("32-bit offsets fit"))
}

/// One image of the chain as the reader sees it.
#[derive(Debug)]
pub struct Img {
    pub base: usize,
    pub len: usize,
    pub code_type: u8,
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub vendor: u16,
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub device: u16,
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub class: [u8; 3],
    pub pcir_last: bool,
    pub npde_last: Option<bool>,
}

impl Img {
    fn last(&self) -> bool {
        self.npde_last.unwrap_or(self.pcir_last)
    }
}

/// Where the PCI expansion ROM starts in `rom` (flash or PROM window):
/// at 0 when it starts with 0x55AA, else through the IFR header.
pub fn rom_start(rom: &[u8]) -> Res<usize> {
    if u16_at(rom, 0)? == 0xaa55 {
        return Ok(0);
    }
    if rom.get(..4) != Some(b"NVGI") {
        return Err("neither 0x55AA nor NVGI at 0".into());
    }
    let fixed1 = u32_at(rom, 4)?;
    match (fixed1 >> 8) & 0xff {
        1 | 2 => usize_at(rom, usize::try_from((fixed1 >> 16) & 0x7fff).unwrap() + 4),
        3 => {
            let total = usize::try_from(u32_at(rom, 8)? & 0xfffff).unwrap();
            let dir = usize_at(rom, total)? + 4096;
            if rom.get(dir..dir + 4) != Some(b"RFRD") {
                return Err(format!("no RFRD at {dir:#x}"));
            }
            usize_at(rom, dir + 8)
        }
        v => Err(format!("IFR version {v}")),
    }
}

/// The image chain from `start`, following the NPDE's length and last flag
/// where there is one, the PCIR's otherwise.
pub fn images(rom: &[u8], start: usize) -> Res<Vec<Img>> {
    let mut out: Vec<Img> = Vec::new();
    let mut base = start;
    while out.last().is_none_or(|i| !i.last()) {
        if out.len() > 16 {
            return Err("more than 16 images".into());
        }
        let sig = u16_at(rom, base)?;
        if sig != 0xaa55 && sig != 0x4e56 {
            return Err(format!("ROM signature {sig:#x} at {base:#x}"));
        }
        let pcir = base + usize::from(u16_at(rom, base + 0x18)?);
        let pcir_sig = rom.get(pcir..pcir + 4).ok_or("PCIR out of bounds")?;
        if pcir_sig != b"PCIR" && pcir_sig != b"NPDS" {
            return Err(format!("PCIR signature {pcir_sig:?} at {pcir:#x}"));
        }
        let pcir_len = usize::from(u16_at(rom, pcir + 0xa)?);
        let blocks = usize::from(u16_at(rom, pcir + 0x10)?);
        let code_type = byte(rom, pcir + 0x14)?;
        let pcir_last = byte(rom, pcir + 0x15)? & 0x80 != 0;
        let npde = (pcir + pcir_len).next_multiple_of(16);
        let (len, npde_last) = if code_type != 0x70 && rom.get(npde..npde + 4) == Some(b"NPDE") {
            let sub = usize::from(u16_at(rom, npde + 8)?);
            (sub * 512, Some(byte(rom, npde + 0xa)? & 0x80 != 0))
        } else {
            (blocks * 512, None)
        };
        if len == 0 {
            return Err(format!("empty image at {base:#x}"));
        }
        out.push(Img {
            base,
            len,
            code_type,
            vendor: u16_at(rom, pcir + 4)?,
            device: u16_at(rom, pcir + 6)?,
            class: [
                byte(rom, pcir + 0xd)?,
                byte(rom, pcir + 0xe)?,
                byte(rom, pcir + 0xf)?,
            ],
            pcir_last,
            npde_last,
        });
        base += len;
    }
    Ok(out)
}

/// The falcon data found through the BIT: the FWSEC section (every image
/// from the first FWSEC one on), the ucode table's offset in it and the
/// PCI-AT image's length the logical pointers are relative to.
pub struct FalconData {
    pub section: Vec<u8>,
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub section_base: usize,
    pub table: usize,
    pub pci_at_len: usize,
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub bit: usize,
}

pub fn falcon_data(rom: &[u8], imgs: &[Img]) -> Res<FalconData> {
    let pci_at = imgs
        .iter()
        .find(|i| i.code_type == 0)
        .ok_or("no PCI-AT image")?;
    let image = slice(rom, pci_at.base, pci_at.len)?;
    let bit = image
        .windows(6)
        .position(|w| w == [0xff, 0xb8, b'B', b'I', b'T', 0])
        .ok_or("no BIT")?;
    let header_size = usize::from(byte(image, bit + 8)?);
    let token_size = usize::from(byte(image, bit + 9)?);
    let tokens = usize::from(byte(image, bit + 10)?);
    let checksum = slice(image, bit, header_size)?
        .iter()
        .fold(0u8, |s, &b| s.wrapping_add(b));
    if checksum != 0 {
        return Err(format!("BIT header checksum {checksum:#x}"));
    }
    let mut pointer = None;
    for t in 0..tokens {
        let entry = bit + header_size + t * token_size;
        if byte(image, entry)? == 0x70 {
            if byte(image, entry + 1)? != 2 || u16_at(image, entry + 2)? < 4 {
                return Err("falcon data token not version 2 with 4 bytes".into());
            }
            let data = usize::from(u16_at(image, entry + 4)?);
            pointer = Some(usize_at(image, data)?);
        }
    }
    let pointer = pointer.ok_or("no falcon data token")?;
    let first = imgs
        .iter()
        .position(|i| i.code_type == 0xe0)
        .ok_or("no FWSEC image")?;
    let section_base = imgs[first].base;
    let section: Vec<u8> = imgs[first..]
        .iter()
        .map(|i| slice(rom, i.base, i.len))
        .collect::<Res<Vec<_>>>()?
        .concat();
    let table = pointer
        .checked_sub(pci_at.len)
        .ok_or("falcon data pointer inside the PCI-AT image")?;
    Ok(FalconData {
        section,
        section_base,
        table,
        pci_at_len: pci_at.len,
        bit: pci_at.base + bit,
    })
}

/// A FWSEC ucode as the reader finds it.
#[derive(Debug)]
pub struct Found {
    /// Offset of the descriptor in the FWSEC section.
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub desc: usize,
    pub version: u8,
    pub imem_load_size: usize,
    pub dmem_load_size: usize,
    pub interface_offset: usize,
    pub pkc_data_offset: usize,
    #[cfg_attr(not(test), expect(dead_code, reason = "read by the tests"))]
    pub signature_count: usize,
    pub signature_versions: u16,
    pub signatures: Vec<Vec<u8>>,
    pub imem: Vec<u8>,
    pub dmem: Vec<u8>,
    /// Where the parts go: IMEM's physical base, v2's secure part (its start in IMEM and
    /// size), DMEM's physical base.
    pub imem_phys_base: usize,
    pub imem_sec: Option<(usize, usize)>,
    pub dmem_phys_base: usize,
    /// v3: the engine mask and the ucode id.
    pub engine_id_mask: u16,
    pub ucode_id: u8,
}

/// The ucode of application `app` in the ucode table.
pub fn find_ucode(fd: &FalconData, app: u8) -> Res<Found> {
    let s = &fd.section;
    let t = fd.table;
    if s.get(t) != Some(&1) {
        return Err(format!("ucode table version {:?}", s.get(t)));
    }
    let (hdr, len, count) = (
        usize::from(byte(s, t + 1)?),
        usize::from(byte(s, t + 2)?),
        byte(s, t + 3)?,
    );
    let entry = (0..usize::from(count))
        .map(|i| t + hdr + i * len)
        .find(|&e| byte(s, e).ok() == Some(app))
        .ok_or(format!("no application {app:#x}"))?;
    let desc = usize_at(s, entry + 2)?
        .checked_sub(fd.pci_at_len)
        .ok_or("descriptor pointer inside the PCI-AT image")?;
    let h = u32_at(s, desc)?;
    if h & 1 == 0 {
        return Err("descriptor not valid".into());
    }
    let version = u8::try_from((h >> 8) & 0xff).unwrap();
    let size = usize::try_from(h >> 16).unwrap();
    let word = |i: usize| usize_at(s, desc + 4 * i);
    let mut f = match version {
        2 => {
            let (imem, dmem_offset) = (word(6)?, word(10)?);
            if dmem_offset != imem {
                return Err("V2 DMEM does not follow IMEM".into());
            }
            Found {
                desc,
                version,
                imem_load_size: imem,
                dmem_load_size: word(12)?,
                interface_offset: word(4)?,
                pkc_data_offset: 0,
                signature_count: 0,
                signature_versions: 0,
                signatures: Vec::new(),
                imem: Vec::new(),
                dmem: Vec::new(),
                imem_phys_base: word(5)?,
                imem_sec: Some((word(8)?.saturating_sub(word(7)?), word(9)?)),
                dmem_phys_base: word(11)?,
                engine_id_mask: 0,
                ucode_id: 0,
            }
        }
        3 => {
            let count = usize::from(byte(s, desc + 39)?);
            let signatures = (0..count)
                .map(|i| slice(s, desc + 44 + 384 * i, 384).map(<[u8]>::to_vec))
                .collect::<Res<_>>()?;
            if size != 44 + 384 * count {
                return Err(format!("V3 size {size:#x} with {count} signatures"));
            }
            Found {
                desc,
                version,
                imem_load_size: word(5)?,
                dmem_load_size: word(8)?,
                interface_offset: word(3)?,
                pkc_data_offset: word(2)?,
                signature_count: count,
                signature_versions: u16_at(s, desc + 40)?,
                signatures,
                imem: Vec::new(),
                dmem: Vec::new(),
                imem_phys_base: word(4)?,
                imem_sec: None,
                dmem_phys_base: word(7)?,
                engine_id_mask: u16_at(s, desc + 36)?,
                ucode_id: byte(s, desc + 38)?,
            }
        }
        v => return Err(format!("descriptor version {v}")),
    };
    let ucode = desc + size;
    let end = ucode + f.imem_load_size + f.dmem_load_size;
    let bytes = s.get(ucode..end).ok_or("ucode beyond the FWSEC section")?;
    f.imem = bytes[..f.imem_load_size].to_vec();
    f.dmem = bytes[f.imem_load_size..].to_vec();
    Ok(f)
}

/// The DMAP through the application interface table: its DMEM offset, its
/// command input buffer offset and its command mask.
pub fn find_dmap(f: &Found) -> Res<(usize, usize, u32)> {
    let d = &f.dmem;
    let i = f.interface_offset;
    if d.get(i) != Some(&1) {
        return Err("application interface table not version 1".into());
    }
    let (hdr, len, count) = (
        usize::from(byte(d, i + 1)?),
        usize::from(byte(d, i + 2)?),
        byte(d, i + 3)?,
    );
    for e in 0..usize::from(count) {
        let entry = i + hdr + e * len;
        if u32_at(d, entry)? != 4 {
            continue;
        }
        let dmap = usize_at(d, entry + 4)?;
        if d.get(dmap..dmap + 4) != Some(b"DMAP") {
            return Err(format!("no DMAP signature at DMEM {dmap:#x}"));
        }
        if u16_at(d, dmap + 4)? != 3 || u16_at(d, dmap + 6)? != 64 {
            return Err("DMAP not version 3 of 64 bytes".into());
        }
        if u32_at(d, dmap + 8 + 4 * 9)? != 0 {
            return Err("init_cmd already set".into());
        }
        let cmd_in = usize_at(d, dmap + 8)?;
        let cmd_in_size = usize_at(d, dmap + 12)?;
        if cmd_in + cmd_in_size > d.len() || cmd_in_size < 44 {
            return Err("command input buffer outside DMEM or too small".into());
        }
        return Ok((dmap, cmd_in, u32_at(d, dmap + 8 + 4 * 11)?));
    }
    Err("no DMEM mapper interface".into())
}

/// The FWSEC ucode the falcon model must expect from the ROM the PROM window shows (`rom`,
/// from the window's start; through an IFR header if the window shows one).
pub fn read_fwsec(rom: &[u8]) -> Res<Expected> {
    let imgs = images(rom, rom_start(rom)?)?;
    let fd = falcon_data(rom, &imgs)?;
    let f = find_ucode(&fd, 0x85)?;
    let (dmap, cmd_in, _) = find_dmap(&f)?;
    let (imem_ns, imem_sec) = match f.imem_sec {
        Some((start, size)) => (
            Some(Load {
                src: 0,
                dst: f.imem_phys_base,
                len: f.imem_load_size.saturating_sub(size),
            }),
            Load {
                src: start,
                dst: f.imem_phys_base + start,
                len: size,
            },
        ),
        None => (
            None,
            Load {
                src: 0,
                dst: f.imem_phys_base,
                len: f.imem_load_size,
            },
        ),
    };
    Ok(Expected {
        version: f.version,
        imem_ns,
        imem_sec,
        dmem_dst: f.dmem_phys_base,
        dmap,
        cmd_in,
        pkc: (f.version == 3).then_some(f.pkc_data_offset),
        engine_id_mask: f.engine_id_mask,
        ucode_id: f.ucode_id,
        signature_versions: f.signature_versions,
        signatures: f.signatures,
        imem: f.imem,
        dmem: f.dmem,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset;
    use crate::vbios::Vbios;

    /// The reader finds in every synthetic VBIOS what the builder put there, IFR header or
    /// not.
    #[test]
    fn reads_back_every_synthetic_vbios() {
        for name in ["tu102", "tu117", "ga100", "ga102", "ad104"] {
            let v = Vbios::build(chipset::find(name).unwrap());
            let read = read_fwsec(v.flash()).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(read, Expected::from_ucode(v.fwsec()), "{name}");
        }
    }

    #[test]
    fn a_broken_rom_is_an_error_not_a_panic() {
        let v = Vbios::build(chipset::find("ga102").unwrap());
        let flash = v.flash().to_vec();
        for cut in [0, 1, 0x20, 0x200, 0x1000, flash.len() / 2] {
            assert!(read_fwsec(&flash[..cut]).is_err(), "cut at {cut:#x}");
        }
        let mut bad = flash.clone();
        bad[0] = 0;
        assert!(read_fwsec(&bad).is_err());
        // Every third byte of the flash set to 0x00 and 0xff in turn: an error or a ucode,
        // never a panic (a user's dump, `make run VBIOS=`, may be anything).
        for at in (0..flash.len()).step_by(3) {
            for value in [0x00, 0xff] {
                let mut f = flash.clone();
                f[at] = value;
                let _ = read_fwsec(&f);
            }
        }
    }
}
