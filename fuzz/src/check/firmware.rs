// SPDX-License-Identifier: GPL-2.0

//! The firmware files' validators: ELF section tables, NVIDIA binary headers, the booters, the
//! generic and RISC-V bootloaders, every file role of every version and chip.
use crate::{
    chip::Chipset,
    firmware::{
        bin_hdr::BinFile,
        booter::{
            BooterImage,
            BooterLayout, //
        },
        elf::Sections,
        validate_file,
        FileKind,
        FwError,
        FwVersion,
        Validated, //
    },
    fwsec::image::GenBootloader,
    untrusted::Untrusted, //
};

/// The ELF section table validator (GSP images, FMC files).
pub fn elf_sections(data: &[u8]) -> Result<usize, String> {
    let sections = Untrusted::new_untrusted_ref(data)
        .validate_ref::<Sections>()
        .map_err(|e| e.to_string())?;
    let mut n = 0;
    for s in sections.iter() {
        let end = s.offset.checked_add(s.size).expect("section end overflows");
        assert!(
            end <= data.len(),
            "section {:?} ends at {end} beyond {}",
            s.name(),
            data.len()
        );
        for o in sections.iter().skip(n + 1) {
            let disjoint =
                s.size == 0 || o.size == 0 || end <= o.offset || o.offset + o.size <= s.offset;
            assert!(
                disjoint,
                "sections {:?} and {:?} overlap",
                s.name(),
                o.name()
            );
        }
        n += 1;
    }
    Ok(n)
}

/// The binary firmware header validator (booter, bootloader files).
pub fn bin_file(data: &[u8]) -> Result<(), String> {
    let bin = Untrusted::new_untrusted_ref(data)
        .validate_ref::<BinFile>()
        .map_err(|e| e.to_string())?;
    assert!(bin.data_offset + bin.data_size <= data.len());
    assert!(bin.header_offset < bin.data_offset);
    Ok(())
}

/// A booter file the validator accepted: what it holds, and how it is loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BooterFacts {
    /// The image's offset in the file and its size.
    pub image: (usize, usize),
    /// The signatures' count and size.
    pub signatures: (usize, usize),
    /// Offset and size of the OS code, the OS data and application 0's code.
    pub os_code: (u32, u32),
    pub os_data: (u32, u32),
    pub app0: (u32, u32),
    pub patch_loc: u32,
    /// Fuse version, engine id mask, ucode id.
    pub params: (u32, u16, u8),
    /// Where each part goes: (image offset, memory offset, bytes).
    pub imem_ns: Option<(u32, u32, u32)>,
    pub imem_sec: (u32, u32, u32),
    pub dmem: (u32, u32, u32),
    pub boot_addr: u32,
    /// The boot ROM's parameters (GA102 and later): signature DMEM offset, engines, ucode id.
    pub brom: Option<(u32, u16, u8)>,
    /// The driver's debug line.
    pub text: String,
}

/// Asserts what an accepted booter file promises: its parts inside the file and the image,
/// the signature's place inside the OS data, every load on whole blocks inside the falcon's
/// 64 KiB, a signature for every fuse reading the rule allows.
fn booter_promises(b: &BooterImage<'_>, file: &[u8], chip: Chipset) -> BooterFacts {
    let inside = |outer: &[u8], inner: &[u8]| {
        let (o, i) = (outer.as_ptr() as usize, inner.as_ptr() as usize);
        i >= o && i + inner.len() <= o + outer.len()
    };
    assert_eq!(b.image.as_ptr(), file[b.image_offset..].as_ptr());
    assert!(!b.image.is_empty() && inside(file, b.image));
    let count = b.signature_count();
    assert!(count >= 1 && b.signature_size > 0);
    for i in 0..count {
        let sig = b.signature(i).expect("every signature below the count");
        assert_eq!(sig.len(), b.signature_size);
        assert!(inside(file, sig));
    }
    assert_eq!(b.signature(count), None);
    assert_eq!(b.signature(usize::MAX), None);
    for (what, p) in [
        ("OS code", b.os_code),
        ("OS data", b.os_data),
        ("app 0", b.app0),
    ] {
        assert!(
            p.offset as usize + p.size as usize <= b.image.len(),
            "{what} {p:x?} outside the image"
        );
    }
    let patch = b.patch_loc as usize;
    assert!(
        patch >= b.os_data.offset as usize
            && patch + b.signature_size <= (b.os_data.offset + b.os_data.size) as usize
    );
    assert!((1..=16).contains(&b.ucode_id));
    let layout = chip.family().booter().map(|f| f.booter);
    assert_eq!(Some(b.layout), layout);
    let turing = layout == Some(BooterLayout::Tu102);
    assert_eq!(b.imem_ns().is_some(), turing);
    assert_eq!(b.brom().is_some(), !turing);
    let segment = |s: crate::falcon::load::Segment| (s.src, s.dst, s.len);
    for (src, dst, len) in b
        .imem_ns()
        .into_iter()
        .chain([b.imem_sec(), b.dmem()])
        .map(segment)
    {
        assert!(src as usize + len as usize <= b.image.len());
        assert!(u64::from(dst) + u64::from(len).next_multiple_of(256) <= 0x1_0000);
        assert_eq!(dst % 256, 0);
    }
    assert_eq!(b.imem_sec().src % 256, 0);
    assert_eq!(b.dmem().src % 256, 0);
    assert_eq!(
        b.boot_addr(),
        if turing {
            b.os_code.offset
        } else {
            b.app0.offset
        }
    );
    if let Some(brom) = b.brom() {
        assert!(brom.pkc_data_offset as usize + b.signature_size <= b.os_data.size as usize);
        assert_eq!(brom.pkc_data_offset, b.patch_loc - b.os_data.offset);
    }
    // The fuse rule: none takes the first, 0 the last, a version at most the ucode's the one
    // that many below it; an index is always a signature.
    assert_eq!(b.signature_index(None), Ok(0));
    assert_eq!(b.signature_index(Some(0)), Ok(count - 1));
    for v in [
        1,
        2,
        b.fuse_version,
        b.fuse_version.saturating_add(1),
        u32::MAX,
    ] {
        if v == 0 {
            continue;
        }
        match b.signature_index(Some(v)) {
            Ok(i) => {
                assert!(v <= b.fuse_version && i == (b.fuse_version - v) as usize && i < count)
            }
            Err(_) => assert!(v > b.fuse_version || (b.fuse_version - v) as usize >= count),
        }
    }
    BooterFacts {
        image: (b.image_offset, b.image.len()),
        signatures: (count, b.signature_size),
        os_code: (b.os_code.offset, b.os_code.size),
        os_data: (b.os_data.offset, b.os_data.size),
        app0: (b.app0.offset, b.app0.size),
        patch_loc: b.patch_loc,
        params: (b.fuse_version, b.engine_id_mask, b.ucode_id),
        imem_ns: b.imem_ns().map(segment),
        imem_sec: segment(b.imem_sec()),
        dmem: segment(b.dmem()),
        boot_addr: b.boot_addr(),
        brom: b
            .brom()
            .map(|p| (p.pkc_data_offset, p.engine_id_mask, p.ucode_id)),
        text: b.to_string(),
    }
}

/// A booter file (`booter_load`, `booter_unload`) loaded on chip `chip` (`tu102`, `ga102`,
/// ...), validated as the driver does; the error is the driver's message.
pub fn booter(file: &[u8], chip: &str) -> Result<BooterFacts, String> {
    let chip = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("unknown chip {chip}"))?;
    let b = Untrusted::new_untrusted_ref(file)
        .validate_ref_against::<BooterImage<'_>, _>(chip)
        .map_err(|e| e.to_string())?;
    Ok(booter_promises(&b, file, chip))
}

/// The signature a booter file accepted for `chip` takes when the fuse reads version `fuse`
/// (`None`: no fuse), or the driver's message.
pub fn booter_signature(file: &[u8], chip: &str, fuse: Option<u32>) -> Result<usize, String> {
    let chip = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("unknown chip {chip}"))?;
    let b = Untrusted::new_untrusted_ref(file)
        .validate_ref_against::<BooterImage<'_>, _>(chip)
        .map_err(|e| e.to_string())?;
    b.signature_index(fuse).map_err(|e| e.to_string())
}

/// Any bytes as a booter file, for both layouts (Turing's and GA102's): how many accepted it.
pub fn booter_file(data: &[u8]) -> usize {
    ["tu102", "ga102"]
        .into_iter()
        .filter(|chip| booter(data, chip).is_ok())
        .count()
}

/// Every file role, in the order `any_firmware_file`'s selector byte (and `seeds.py`) uses.
const KINDS: [FileKind; 5] = [
    FileKind::BooterLoad,
    FileKind::BooterUnload,
    FileKind::Bootloader,
    FileKind::Fmc,
    FileKind::Gsp,
];

/// The names of the supported chips, as in firmware paths.
pub fn chip_names() -> impl Iterator<Item = &'static str> {
    Chipset::ALL.iter().map(|c| c.name())
}

/// A firmware file of role `kind` (`gsp`, `fmc`, `booter_load`, ...), version `version`
/// (`570.144`, ...) for chip `chip` (`ga102`, ...), validated as the driver does.
pub fn firmware_file(kind: &str, version: &str, chip: &str, data: &[u8]) -> Result<(), String> {
    let kind = KINDS
        .into_iter()
        .find(|k| k.name() == kind)
        .ok_or_else(|| format!("unknown file kind {kind}"))?;
    let version = FwVersion::ALL
        .iter()
        .copied()
        .find(|v| v.name() == version)
        .ok_or_else(|| format!("unknown version {version}"))?;
    let chip = Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("unknown chip {chip}"))?;
    validate(kind, version, chip, data).map_err(|e| e.to_string())
}

fn validate(kind: FileKind, version: FwVersion, chip: Chipset, data: &[u8]) -> Result<(), FwError> {
    match validate_file(kind, Untrusted::new_untrusted_ref(data), version, chip)? {
        Validated::Gsp(image) => {
            for (offset, bytes) in [
                (image.image_offset, image.image),
                (image.signature_offset, image.signature),
            ] {
                assert!(!bytes.is_empty() && offset + bytes.len() <= data.len());
                // The validated section is the file's own bytes at that offset.
                assert_eq!(bytes.as_ptr(), data[offset..].as_ptr());
            }
        }
        Validated::Bin(bin) => assert!(bin.data_offset + bin.data_size <= data.len()),
        Validated::Booter(b) => {
            booter_promises(&b, data, chip);
        }
        Validated::Fmc(m) => {
            for bytes in [m.image, m.hash, m.public_key, m.signature] {
                assert!(!bytes.is_empty());
                // Each section is the file's own bytes.
                let start = bytes.as_ptr() as usize - data.as_ptr() as usize;
                assert!(start + bytes.len() <= data.len());
            }
            assert_eq!(m.hash.len(), 48);
        }
    }
    Ok(())
}

/// Any firmware file: the first byte picks the role, version and chip, the rest is the file.
pub fn any_firmware_file(data: &[u8]) -> Result<(), String> {
    let Some((&pick, file)) = data.split_first() else {
        return Err("empty input".into());
    };
    let kind = KINDS[usize::from(pick) % KINDS.len()];
    let version = FwVersion::ALL[usize::from(pick >> 3) % FwVersion::ALL.len()];
    let chip = Chipset::ALL[usize::from(pick >> 4) % Chipset::ALL.len()];
    validate(kind, version, chip, file).map_err(|e| e.to_string())
}

/// The generic bootloader file: its code, start tag and IMEM destination.
pub fn gen_bootloader(file: &[u8]) -> Result<(usize, u32, u32), String> {
    let bl = Untrusted::new_untrusted_ref(file)
        .validate_ref::<GenBootloader<'_>>()
        .map_err(|e| e.to_string())?;
    assert!(usize::from(bl.imem_dst) + bl.code.len().next_multiple_of(256) <= 0x10000);
    assert!(usize::from(bl.start_tag) + bl.code.len().div_ceil(256) <= 0x100);
    Ok((
        bl.code.len(),
        u32::from(bl.start_tag),
        u32::from(bl.imem_dst),
    ))
}

/// What the driver loads of a generic bootloader file (either name): its code, start tag and
/// IMEM destination.
pub fn gen_bootloader_loaded(file: &[u8]) -> Result<(Vec<u8>, u16, u16), String> {
    let bl = Untrusted::new_untrusted_ref(file)
        .validate_ref::<GenBootloader<'_>>()
        .map_err(|e| e.to_string())?;
    Ok((bl.code.to_vec(), bl.start_tag, bl.imem_dst))
}

/// The RISC-V bootloader file validated as the driver does: its ucode's length and the code,
/// data and manifest offsets and application version the WPR meta gets.
pub fn riscv_bootloader(data: &[u8]) -> Result<(usize, [u32; 4]), String> {
    let bl = Untrusted::new_untrusted_ref(data)
        .validate_ref::<crate::firmware::riscv::RiscvBootloader<'_>>()
        .map_err(|e| e.to_string())?;
    // What acceptance promises: a ucode inside the file, the offsets inside the ucode.
    assert!(!bl.ucode.is_empty() && bl.ucode.len() <= data.len());
    for o in [bl.code_offset, bl.data_offset, bl.manifest_offset] {
        assert!(o as usize <= bl.ucode.len());
    }
    Ok((
        bl.ucode.len(),
        [
            bl.code_offset,
            bl.data_offset,
            bl.manifest_offset,
            bl.app_version,
        ],
    ))
}

/// A signature fuse register's version (its highest set bit, counted from 1).
pub fn fuse_version(raw: u32) -> u32 {
    let Ok(crate::falcon::state::FuseVersion(v)) =
        Untrusted::new_untrusted(raw).validate_ref::<crate::falcon::state::FuseVersion>();
    v
}
