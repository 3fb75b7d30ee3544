// SPDX-License-Identifier: GPL-2.0

//! The VBIOS's validators and what is made of it: the ROM chain through the PROM window, the
//! FWSEC image and its signature, FWSEC-FRTS's and FWSEC-SB's outcomes.
use super::{
    fb::wpr2_fields,
    u32_at, //
};
use crate::{
    fwsec::{
        image::{
            BootloaderDesc,
            FwsecCommand,
            FwsecImage,
            SignatureChoice, //
            CMD_FRTS,
            FRTS_CMD_SIZE,
        },
        outcome::{
            FrtsDone,
            FrtsRegs, //
        },
    },
    untrusted::Untrusted,
    vbios::{
        self,
        fwsec::{
            RomBytes,
            UcodeDesc, //
            SIGNATURE_SIZE,
        },
        rom::{
            ImageType,
            MAX_IMAGES, //
        },
        Vbios,
        Window, //
    },
};

/// What an accepted VBIOS holds, for the tests: offsets in the ROM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VbiosFacts {
    /// The IFR header's version, if the ROM starts with one.
    pub ifr_version: Option<u8>,
    /// Where the first image starts.
    pub rom_offset: usize,
    /// Per image: offset, length, code type, last.
    pub images: Vec<(usize, usize, u8, bool)>,
    /// Where the FWSEC images start, and their length.
    pub fwsec_section: (usize, usize),
    /// Where the BIT header starts.
    pub bit: usize,
    /// Where the falcon data token's pointer is, and its value.
    pub falcon_data: (usize, u32),
    /// Where the PMU lookup table starts, and where its FWSEC entry does.
    pub pmu_table: (usize, usize),
    /// Where the FWSEC descriptor starts, and its version.
    pub desc: (usize, u8),
    /// The descriptor's IMEM and DMEM load sizes.
    pub load_sizes: (u32, u32),
    /// Offset and length of the signatures, and their count.
    pub signatures: (usize, usize, usize),
    /// Offset and length of the ucode, its IMEM and its DMEM.
    pub ucode: (usize, usize),
    pub imem: (usize, usize),
    pub dmem: (usize, usize),
    /// Where the application interface table starts.
    pub appif: usize,
    /// Where the DMEM mapper starts, in the ROM and in DMEM.
    pub dmem_mapper: (usize, usize),
    /// The DMEM mapper's command input and output buffers (offset, size).
    pub cmd_in: (u32, u32),
    pub cmd_out: (u32, u32),
}

/// A rejected VBIOS: the error's variant name and its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    /// The `VbiosError` variant.
    pub variant: String,
    /// Its Display.
    pub message: String,
}

/// Asserts that `part` lies inside `data` at its offset, and inside `outer` (offset, length).
fn rom_bytes_inside(data: &[u8], part: RomBytes<'_>, outer: (usize, usize), what: &str) {
    let end = part.offset.checked_add(part.bytes.len()).expect("overflow");
    assert!(end <= data.len(), "{what} ends at {end:#x} beyond the ROM");
    assert!(
        part.offset >= outer.0 && end <= outer.0 + outer.1,
        "{what} {:#x}+{:#x} outside {:#x}+{:#x}",
        part.offset,
        part.bytes.len(),
        outer.0,
        outer.1
    );
    // The validated bytes are the ROM's own, at that offset.
    assert_eq!(part.bytes.as_ptr(), data[part.offset..].as_ptr(), "{what}");
}

/// The VBIOS validator (the bytes read through the PROM window): an accepted ROM has a chain of
/// images without gaps inside the ROM, the last one flagged last, and every structure and byte
/// range the result names inside the image it belongs to.
pub fn vbios(data: &[u8]) -> Result<VbiosFacts, Rejected> {
    let v = Untrusted::new_untrusted_ref(data)
        .validate_ref::<Vbios<'_>>()
        .map_err(|e| {
            let debug = format!("{e:?}");
            Rejected {
                variant: debug
                    .chars()
                    .take_while(char::is_ascii_alphanumeric)
                    .collect(),
                message: e.to_string(),
            }
        })?;
    let rom_offset = v.ifr.map_or(0, |i| i.rom_offset);
    assert!(v.images.len() >= 1 && v.images.len() <= MAX_IMAGES);
    let mut at = rom_offset;
    for (n, image) in v.images.iter().enumerate() {
        assert_eq!(
            image.offset, at,
            "image {n} does not follow its predecessor"
        );
        assert!(image.len > 0 && image.len % 512 == 0);
        at = image.offset + image.len;
        assert!(at <= data.len(), "image {n} ends at {at:#x} beyond the ROM");
        assert_eq!(image.last, n + 1 == v.images.len(), "image {n}'s last flag");
        assert!(matches!(
            &data[image.offset..image.offset + 2],
            [0x55, 0xaa] | [0x56, 0x4e]
        ));
    }
    let pci_at = v.pci_at;
    assert!(v.images.iter().any(|i| *i == pci_at));
    assert_eq!(pci_at.image_type, ImageType::PciAt);
    let section = (v.fwsec_section.offset, v.fwsec_section.len);
    assert!(v
        .images
        .iter()
        .any(|i| i.offset == section.0 && i.image_type == ImageType::FwSec));
    assert_eq!(section.0 + section.1, v.images.end());
    assert!(pci_at.offset < section.0);
    let pci_at_range = (pci_at.offset, pci_at.len);
    let bit = v.bit;
    assert!(bit.offset >= pci_at.offset && bit.offset + 12 <= pci_at.end());
    assert_eq!(&data[bit.offset..bit.offset + 6], b"\xff\xb8BIT\0");
    assert!(bit.falcon_data.offset >= pci_at.offset && bit.falcon_data.offset + 4 <= pci_at.end());
    assert_eq!(
        u32_at(data, bit.falcon_data.offset),
        bit.falcon_data.pointer
    );

    let f = v.fwsec;
    let in_section = |at: usize, len: usize| at >= section.0 && at + len <= section.0 + section.1;
    assert!(in_section(f.pmu_table.offset, 4));
    assert!(in_section(f.pmu_table.fwsec_entry, 6));
    assert_eq!(data[f.pmu_table.fwsec_entry], 0x85);
    let (desc_size, version, imem_len, dmem_len) = match f.desc {
        UcodeDesc::V2(d) => (60, 2, d.imem_load_size, d.dmem_load_size),
        UcodeDesc::V3(d) => (44, 3, d.imem_load_size, d.dmem_load_size),
    };
    assert!(in_section(f.desc_offset, desc_size));
    assert_eq!(data[f.desc_offset + 1], version);
    assert_eq!(f.desc.version(), version);
    let count = f.desc.signature_count();
    assert_eq!(f.signatures.bytes.len(), count * SIGNATURE_SIZE);
    assert_eq!(f.signatures.offset, f.desc_offset + desc_size);
    assert!(f.signatures.offset + f.signatures.bytes.len() <= f.ucode.offset);
    rom_bytes_inside(data, f.signatures, section, "signatures");
    rom_bytes_inside(data, f.ucode, section, "ucode");
    let ucode = (f.ucode.offset, f.ucode.bytes.len());
    assert_eq!(ucode.1 as u64, u64::from(imem_len) + u64::from(dmem_len));
    rom_bytes_inside(data, f.imem, ucode, "IMEM");
    rom_bytes_inside(data, f.dmem, ucode, "DMEM");
    assert_eq!(f.imem.offset, f.ucode.offset);
    assert_eq!(f.imem.bytes.len() as u64, u64::from(imem_len));
    assert_eq!(f.dmem.bytes.len() as u64, u64::from(dmem_len));
    let dmem = (f.dmem.offset, f.dmem.bytes.len());
    match f.desc {
        UcodeDesc::V2(d) => {
            assert_eq!(f.dmem.offset, f.ucode.offset + d.dmem_offset as usize);
            let start = d.imem_sec_base.saturating_sub(d.imem_virt_base);
            assert!(u64::from(start) + u64::from(d.imem_sec_size) <= u64::from(imem_len));
        }
        UcodeDesc::V3(d) => {
            assert_eq!(f.dmem.offset, f.ucode.offset + imem_len as usize);
            if d.signature_count > 0 {
                assert!(d.pkc_data_offset as usize + SIGNATURE_SIZE <= dmem.1);
            }
        }
    }
    assert!(f.appif_offset >= dmem.0 && f.appif_offset + 4 <= dmem.0 + dmem.1);
    assert_eq!(data[f.appif_offset], 1);
    let m = f.dmem_mapper;
    assert_eq!(m.offset, dmem.0 + m.dmem_offset);
    assert!(m.offset + 64 <= dmem.0 + dmem.1);
    assert_eq!(&data[m.offset..m.offset + 4], b"DMAP");
    assert!(u64::from(m.cmd_in_offset) + u64::from(m.cmd_in_size) <= dmem.1 as u64);
    assert!(pci_at_range.0 + pci_at_range.1 <= section.0);
    Ok(VbiosFacts {
        ifr_version: v.ifr.map(|i| i.version),
        rom_offset,
        images: v
            .images
            .iter()
            .map(|i| (i.offset, i.len, i.image_type.code(), i.last))
            .collect(),
        fwsec_section: section,
        bit: bit.offset,
        falcon_data: (bit.falcon_data.offset, bit.falcon_data.pointer),
        pmu_table: (f.pmu_table.offset, f.pmu_table.fwsec_entry),
        desc: (f.desc_offset, version),
        load_sizes: (imem_len, dmem_len),
        signatures: (f.signatures.offset, f.signatures.bytes.len(), count),
        ucode,
        imem: (f.imem.offset, f.imem.bytes.len()),
        dmem,
        appif: f.appif_offset,
        dmem_mapper: (m.offset, m.dmem_offset),
        cmd_in: (m.cmd_in_offset, m.cmd_in_size),
        cmd_out: (m.cmd_out_offset, m.cmd_out_size),
    })
}

/// The driver's reader of the PROM window ([`vbios::read_in_parts`], which `prom.rs` drives over
/// BAR0) on `flash` as the window shows it (0xff past its end, up to the window's size): the
/// first `first` bytes, then parts of `part`. Returns what the last validation said and how
/// many bytes were read; asserts that the reader never asks past the window and that every step
/// reads more.
pub fn vbios_in_parts(
    flash: &[u8],
    first: usize,
    part: usize,
) -> (Result<VbiosFacts, Rejected>, usize) {
    struct FileWindow<'a> {
        flash: &'a [u8],
        read: Vec<u8>,
    }

    impl Window for FileWindow<'_> {
        type Err = core::convert::Infallible;

        fn read_to(&mut self, len: usize) -> Result<(), Self::Err> {
            assert!(len > self.read.len() && len <= vbios::PROM_SIZE, "{len:#x}");
            let from = self.read.len();
            self.read
                .extend((from..len).map(|i| self.flash.get(i).copied().unwrap_or(0xff)));
            Ok(())
        }

        fn bytes(&self) -> &Untrusted<[u8]> {
            Untrusted::new_untrusted_ref(&self.read[..])
        }
    }

    let mut window = FileWindow {
        flash,
        read: Vec::new(),
    };
    let outcome = vbios::read_in_parts(&mut window, first, part);
    let facts = vbios(&window.read);
    assert_eq!(outcome.is_ok(), facts.is_ok());
    (facts, window.read.len())
}

/// The FWSEC image made from a VBIOS the validator accepted, for FRTS on `frts` (a 1 MiB
/// region at `frts_start`), with the fuse register reading `fuse` and the family loading the
/// descriptor's own version: every byte is the ROM's ucode but the three patches, which hold
/// the command, its input and the signature the fuse chose. Returns the image and the chosen
/// signature's index; `Err` for a ROM the validator refuses or an image that cannot be made.
pub fn fwsec_image(
    rom: &[u8],
    frts_start: u64,
    fuse: u32,
) -> Result<(Vec<u8>, Option<usize>), String> {
    let v = Untrusted::new_untrusted_ref(rom)
        .validate_ref::<Vbios<'_>>()
        .map_err(|e| e.to_string())?;
    let f = &v.fwsec;
    let signature = match FwsecImage::fuse_register(f).map_err(|e| e.to_string())? {
        Some(_) => Some(
            Untrusted::new_untrusted(fuse)
                .validate_ref_against::<SignatureChoice, _>(FwsecImage::signature_versions(f))
                .map_err(|e| e.to_string())?,
        ),
        None => None,
    };
    let frts = frts_start..frts_start + (1 << 20);
    let command = FwsecCommand::Frts {
        start: frts.start,
        len: 1 << 20,
    };
    let image =
        FwsecImage::new(f, f.desc.version(), command, signature).map_err(|e| e.to_string())?;
    let mut out = vec![0u8; image.len];
    image.write(f, &mut out).map_err(|e| e.to_string())?;
    // Every byte is the ROM's but the patches.
    let dmem_at = f.dmem.offset - f.ucode.offset;
    let mapper = dmem_at + f.dmem_mapper.dmem_offset + 44;
    let cmd = dmem_at + f.dmem_mapper.cmd_in_offset as usize;
    let pkc = match f.desc {
        UcodeDesc::V3(d) if signature.is_some() => Some(dmem_at + d.pkc_data_offset as usize),
        _ => None,
    };
    let patched = |i: usize| {
        (mapper..mapper + 4).contains(&i)
            || (cmd..cmd + FRTS_CMD_SIZE).contains(&i)
            || pkc.is_some_and(|p| (p..p + SIGNATURE_SIZE).contains(&i))
    };
    for (i, (&a, &b)) in out.iter().zip(f.ucode.bytes).enumerate() {
        assert!(
            a == b || patched(i),
            "byte {i:#x} changed outside the patches"
        );
    }
    let word = |at: usize| u32::from_le_bytes([out[at], out[at + 1], out[at + 2], out[at + 3]]);
    assert_eq!(word(mapper), CMD_FRTS);
    assert_eq!(
        (0..11).map(|i| word(cmd + 4 * i)).collect::<Vec<_>>(),
        [
            1,
            24,
            0,
            0,
            0,
            2,
            1,
            20,
            (frts.start >> 12) as u32,
            0x100,
            2
        ]
    );
    if let (Some(p), Some(s)) = (pkc, signature) {
        let sig = &f.signatures.bytes[s.index * SIGNATURE_SIZE..(s.index + 1) * SIGNATURE_SIZE];
        assert_eq!(&out[p..p + SIGNATURE_SIZE], sig);
    }
    // Where the parts go lies inside the image; v2 has the bootloader's descriptor.
    for seg in image.imem_ns.iter().chain([&image.imem_sec, &image.dmem]) {
        assert!((seg.src + seg.len) as usize <= image.len);
    }
    if image.imem_ns.is_some() {
        let desc = BootloaderDesc::new(&image, 0x1000).map_err(|e| e.to_string())?;
        let bytes = desc.to_bytes();
        assert_eq!(bytes.len(), BootloaderDesc::SIZE);
        assert_eq!(
            u32::from_le_bytes(bytes[32..36].try_into().unwrap()),
            BootloaderDesc::CTX_DMA
        );
    }
    Ok((out, signature.map(|s| s.index)))
}

/// The signature the fuse value `fuse` chooses among `count` signatures of `versions`.
pub fn signature_choice(fuse: u32, versions: u16, count: usize) -> Result<(u32, usize), String> {
    Untrusted::new_untrusted(fuse)
        .validate_ref_against::<SignatureChoice, _>(crate::fwsec::image::SignatureVersions {
            versions,
            count,
        })
        .map(|c| {
            assert!(versions & (1 << c.fuse_version) != 0 && c.index < count);
            (c.fuse_version, c.index)
        })
        .map_err(|e| e.to_string())
}

/// FWSEC-FRTS's outcome registers against the FRTS region asked for: done only with both
/// status registers clear and WPR2 starting at the region and covering it.
pub fn frts_outcome(
    mailbox0: u32,
    scratch_0e: u32,
    lo: u32,
    hi: u32,
    frts: (u64, u64),
) -> Result<(u64, u64), String> {
    // The error code field as the driver's register declaration decodes it (bits 31:16).
    let regs = FrtsRegs {
        mailbox0,
        frts_error: (scratch_0e >> 16) as u16,
        wpr2: wpr2_fields(lo, hi),
    };
    Untrusted::new_untrusted(regs)
        .validate_ref_against::<FrtsDone, _>(frts.0..frts.1)
        .map(|d| {
            assert!(mailbox0 == 0 && scratch_0e >> 16 == 0);
            assert!(d.wpr2.start == frts.0 && d.wpr2.end >= frts.1);
            (d.wpr2.start, d.wpr2.end)
        })
        .map_err(|e| e.to_string())
}

/// What FWSEC-SB left, as teardown reads it.
pub fn sb_outcome(mailbox0: u32, scratch_15: u32) -> Result<(), String> {
    // The error code field as the driver's register declaration decodes it (bits 15:0).
    Untrusted::new_untrusted(crate::fwsec::outcome::SbRegs {
        mailbox0,
        sb_error: scratch_15 as u16,
    })
    .validate_ref::<crate::fwsec::outcome::SbDone>()
    .map(|_| ())
    .map_err(|e| e.to_string())
}
