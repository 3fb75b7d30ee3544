// SPDX-License-Identifier: GPL-2.0

//! The VBIOS: the GPU's flash ROM as the PROM window (BAR0 + 0x300000) shows it, and the FWSEC
//! ucode the GSP boot runs from it.
//!
//! [`Vbios`] is the trusted result of validating the bytes read through the PROM window: the
//! chain of PCI expansion ROM images, the BIT table of the PCI-AT image, the PMU lookup table it
//! points to, and the FWSEC ucode (its descriptor, signatures, IMEM and DMEM, and the DMEM mapper
//! interface in its DMEM). Every offset and length the ROM gives is checked before it is used,
//! and every range the result holds lies inside the ROM.
//!
//! The work is split by structure, in the order a parse meets them: [`rom`] (the IFR header and
//! the image chain), [`bit`] (the BIT table and its falcon data token), [`fwsec`] (the PMU lookup
//! table and the FWSEC ucode).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.
//!
//! Glossary:
//! - PROM: the ROM window in BAR0, at 0x300000, 1 MiB long.
//! - IFR: Init-From-ROM, the header (signature `NVGI`) that precedes the PCI expansion ROM in
//!   the flash; the hardware skips it on most GPUs, not on GA100.
//! - PCIR, NPDS: the PCI Data Structure of an expansion ROM image (PCI Firmware Specification);
//!   NVIDIA's own images call it `NPDS`.
//! - NPDE: NVIDIA's PCI Data Extension, after the PCIR; its image length and last-image flag
//!   win over the PCIR's.
//! - PCI-AT, EFI, NBSI, FWSEC: image code types 0x00 (x86 BIOS), 0x03 (UEFI driver), 0x70
//!   (Notebook System Information) and 0xE0 (NVIDIA's firmware images).
//! - BIT: the BIOS Information Table of the PCI-AT image, a list of tokens pointing to data.
//! - PMU lookup table: the falcon ucode table the BIT falcon data token (`p`, 0x70) points to;
//!   one entry per application, FWSEC's id is 0x85.
//! - FWSEC: the heavy-secure ucode the GSP falcon runs to carve out WPR2 (its FRTS command).
//! - IMEM, DMEM: a falcon's instruction and data memories, loaded from the ucode.
//! - DMAP: the signature of the DMEM mapper, the FWSEC application interface that takes a
//!   command (FRTS) in its command input buffer.

use core::fmt;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

// The host crate (`fuzz/`) includes this file with `#[path]`, which makes rustc look for the
// children next to it, as for a `mod.rs`; explicit paths resolve alike in both builds.
#[path = "vbios/bit.rs"]
pub(crate) mod bit;
#[path = "vbios/fwsec.rs"]
pub(crate) mod fwsec;
#[path = "vbios/rom.rs"]
pub(crate) mod rom;

use bit::Bit;
use fwsec::{
    Fwsec,
    FwsecSection, //
    SIGNATURE_SIZE,
};
use rom::{
    Ifr,
    Image,
    ImageType,
    Images, //
};

/// Why the ROM was rejected: what was wrong, and where (offsets in the ROM unless said
/// otherwise). Raw values a log line quotes travel in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VbiosError {
    /// The ROM ends inside the named part of the IFR header, or before a word it points to.
    IfrTruncated {
        /// The part of the header.
        what: &'static str,
        /// Where it starts.
        at: usize,
        /// The ROM's length.
        rom_len: usize,
    },
    /// The IFR header has a version the driver does not know (1, 2 and 3 are known).
    IfrVersion {
        /// The header's software version.
        version: u8,
    },
    /// The IFR v3 ROM directory does not carry its signature `RFRD`.
    RomDirectory {
        /// Where the directory should be.
        at: usize,
        /// What is there instead.
        found: u32,
    },
    /// The PCI ROM offset the IFR header gives lies outside the ROM.
    RomOffsetOutside {
        /// The offset.
        offset: u32,
        /// The ROM's length.
        rom_len: usize,
    },
    /// The PCI ROM offset the IFR header gives is not 4-byte aligned.
    RomOffsetMisaligned {
        /// The offset.
        offset: u32,
    },
    /// The ROM ends inside an image's ROM header.
    ImageTruncated {
        /// The image's place in the chain (0 is the first).
        index: usize,
        /// Where the image starts.
        at: usize,
        /// The ROM's length.
        rom_len: usize,
    },
    /// The ROM ends where the next image should start: no image said it was the last.
    NoLastImage {
        /// The image that should have started there.
        index: usize,
        /// Where.
        at: usize,
    },
    /// An image does not start with a PCI expansion ROM signature (0xAA55 or NVIDIA's 0x4E56).
    RomSignature {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
        /// The first two bytes, little-endian.
        found: u16,
    },
    /// An image's PCIR pointer leads outside the ROM.
    PcirOutside {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
        /// The pointer (relative to the image).
        pcir: u16,
    },
    /// An image's PCI Data Structure has neither signature `PCIR` nor `NPDS`.
    PcirSignature {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
        /// The four bytes found.
        found: [u8; 4],
    },
    /// An image's PCIR gives it a length of 0.
    PcirLengthZero {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
    },
    /// An image's NPDE gives a longer sub-image than its PCIR gives the image: one of them lies.
    NpdeLongerThanPcir {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
        /// The NPDE's length, in bytes.
        npde_len: usize,
        /// The PCIR's length, in bytes.
        pcir_len: usize,
    },
    /// An image extends past the end of the ROM.
    ImagePastEnd {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
        /// Its length, in bytes.
        len: usize,
        /// The ROM's length.
        rom_len: usize,
    },
    /// An image's own headers (PCIR, NPDE) extend past the image's length, into the next one.
    HeadersOutsideImage {
        /// The image's place in the chain.
        index: usize,
        /// Where the image starts.
        at: usize,
        /// Its length, in bytes.
        len: usize,
        /// Where its headers end, relative to the image.
        headers_end: usize,
    },
    /// The chain goes on beyond [`rom::MAX_IMAGES`] images.
    TooManyImages {
        /// Where the image beyond the limit starts.
        at: usize,
    },
    /// No PCI-AT image (code type 0x00) precedes the FWSEC images.
    NoPciAtImage,
    /// No FWSEC image (code type 0xE0) in the chain.
    NoFwsecImage,
    /// No BIT header in the PCI-AT image.
    NoBit {
        /// Where the PCI-AT image starts.
        image_at: usize,
    },
    /// The PCI-AT image ends inside the BIT header.
    BitTruncated {
        /// Where the header starts.
        at: usize,
    },
    /// The BIT header gives sizes too small for its own header or for a token.
    BitSizes {
        /// Where the header starts.
        at: usize,
        /// The header size it gives.
        header_size: u8,
        /// The token size it gives.
        token_size: u8,
    },
    /// The BIT token list runs past the end of the PCI-AT image.
    BitTokensOutside {
        /// Where the header starts.
        at: usize,
        /// How many tokens it lists.
        count: u8,
        /// The size of one.
        token_size: u8,
    },
    /// The BIT has no falcon data token (`p`, 0x70).
    NoFalconToken {
        /// Where the BIT header starts.
        at: usize,
    },
    /// The falcon data token's data lies outside the PCI-AT image, or is too short for the
    /// 4-byte pointer.
    FalconTokenData {
        /// Where the token starts.
        at: usize,
        /// Its data offset (relative to the PCI-AT image).
        offset: u16,
        /// Its data size.
        size: u16,
    },
    /// The falcon data pointer lies inside the PCI-AT image rather than in the FWSEC images.
    FalconDataPointer {
        /// The pointer.
        pointer: u32,
        /// The PCI-AT image's length.
        pci_at_len: usize,
    },
    /// The falcon data pointer (the PMU lookup table) leads past the FWSEC images.
    FalconDataOutside {
        /// The pointer.
        pointer: u32,
        /// The FWSEC images' length.
        fwsec_len: usize,
    },
    /// The PMU lookup table gives sizes too small for its header or for an entry.
    PmuTableSizes {
        /// Where the table starts.
        at: usize,
        /// The header length it gives.
        header_len: u8,
        /// The entry length it gives.
        entry_len: u8,
    },
    /// The PMU lookup table's entries run past the FWSEC images.
    PmuTableOutside {
        /// Where the table starts.
        at: usize,
        /// How many entries it lists.
        count: u8,
        /// The length of one.
        entry_len: u8,
    },
    /// The PMU lookup table has no FWSEC entry (application id 0x85).
    NoFwsecEntry {
        /// Where the table starts.
        at: usize,
        /// How many entries it lists.
        count: u8,
    },
    /// The FWSEC entry's ucode pointer lies inside the PCI-AT image rather than in the FWSEC
    /// images.
    UcodePointer {
        /// Where the entry starts.
        at: usize,
        /// The pointer.
        pointer: u32,
    },
    /// The FWSEC entry's ucode pointer leads past the FWSEC images, or the descriptor there is
    /// cut by their end.
    DescOutside {
        /// The pointer.
        pointer: u32,
        /// The FWSEC images' length.
        fwsec_len: usize,
    },
    /// The ucode descriptor's header does not have its valid flag (bit 0) set.
    DescInvalid {
        /// Where the descriptor starts.
        at: usize,
        /// Its header word.
        hdr: u32,
    },
    /// The ucode descriptor has a version the driver does not know (2 and 3 are known).
    DescVersion {
        /// Where the descriptor starts.
        at: usize,
        /// The version.
        version: u8,
    },
    /// The descriptor's size (its header's upper half) does not cover the descriptor and the
    /// signatures that follow it.
    DescSize {
        /// Where the descriptor starts.
        at: usize,
        /// The size it gives.
        size: usize,
        /// The size its version and signature count need.
        needed: usize,
    },
    /// The ucode (IMEM and DMEM load sizes, after the descriptor) runs past the FWSEC images.
    UcodeOutside {
        /// Where the descriptor starts.
        at: usize,
        /// Its IMEM load size.
        imem: u32,
        /// Its DMEM load size.
        dmem: u32,
    },
    /// A v2 descriptor's secure IMEM segment lies outside the IMEM it loads.
    ImemSecOutside {
        /// Where the descriptor starts.
        at: usize,
        /// The segment's start in IMEM.
        start: u32,
        /// Its size.
        size: u32,
        /// The IMEM load size.
        imem: u32,
    },
    /// A v2 descriptor's DMEM lies outside the ucode.
    DmemOutside {
        /// Where the descriptor starts.
        at: usize,
        /// The DMEM's offset in the ucode.
        offset: u32,
        /// Its size.
        size: u32,
        /// The ucode's length.
        ucode_len: usize,
    },
    /// A v3 descriptor's signature location (its PKC data offset) lies outside the DMEM.
    PkcOutside {
        /// Where the descriptor starts.
        at: usize,
        /// The offset in DMEM.
        offset: u32,
        /// The DMEM's size.
        dmem: usize,
    },
    /// The application interface table header lies outside the DMEM.
    AppifOutside {
        /// Its offset in DMEM.
        offset: u32,
        /// The DMEM's size.
        dmem: usize,
    },
    /// The application interface table has a version other than 1.
    AppifVersion {
        /// Where the table starts.
        at: usize,
        /// The version.
        version: u8,
    },
    /// The application interface table gives sizes too small for its header or for an entry.
    AppifSizes {
        /// Where the table starts.
        at: usize,
        /// The header size it gives.
        header_size: u8,
        /// The entry size it gives.
        entry_size: u8,
    },
    /// The application interface entries run past the DMEM.
    AppifEntriesOutside {
        /// Where the table starts.
        at: usize,
        /// How many entries it lists.
        count: u8,
        /// The size of one.
        entry_size: u8,
    },
    /// No application interface is the DMEM mapper (id 4).
    NoDmemMapper {
        /// Where the table starts.
        at: usize,
        /// How many entries it lists.
        count: u8,
    },
    /// The DMEM mapper lies outside the DMEM.
    DmemMapperOutside {
        /// Its offset in DMEM.
        offset: u32,
        /// The DMEM's size.
        dmem: usize,
    },
    /// The DMEM mapper does not carry its signature `DMAP`.
    DmapSignature {
        /// Where it starts.
        at: usize,
        /// The four bytes found.
        found: [u8; 4],
    },
    /// The DMEM mapper's command input buffer lies outside the DMEM.
    CmdInOutside {
        /// Where the mapper starts.
        at: usize,
        /// The buffer's offset in DMEM.
        offset: u32,
        /// Its size.
        size: u32,
        /// The DMEM's size.
        dmem: usize,
    },
}

impl VbiosError {
    /// How many bytes of ROM would get the walk past this error, if it is the end of the bytes
    /// read so far rather than a lie of the ROM: the chain or a header reaches past them, and
    /// reading more of the PROM window may cure it. A reader that reads the window in parts (it
    /// is slow, and ROMs are far shorter than it) reads on to at least this length after these
    /// errors, and only after these.
    pub(crate) fn rom_needed(&self) -> Option<usize> {
        match *self {
            VbiosError::IfrTruncated { at, .. } => at.checked_add(rom::IFR_PART_MAX),
            VbiosError::RomOffsetOutside { offset, .. } => {
                to_usize(offset)?.checked_add(rom::ROM_HEADER_SIZE)
            }
            VbiosError::ImageTruncated { at, .. } | VbiosError::NoLastImage { at, .. } => {
                at.checked_add(rom::ROM_HEADER_SIZE)
            }
            VbiosError::PcirOutside { at, pcir, .. } => at
                .checked_add(usize::from(pcir))
                .and_then(|end| end.checked_add(rom::PCIR_AND_NPDE_SIZE)),
            VbiosError::ImagePastEnd { at, len, .. } => at.checked_add(len),
            _ => None,
        }
    }
}

/// The PROM window's size (`NV_PROM_DATA__SIZE_1`): no ROM is read past it.
pub(crate) const PROM_SIZE: usize = 0x100000;

/// How far a reader that reads the window in parts of `part` bytes, holding `have` of them,
/// reads next after `err`: whole parts, at least one more, as far as the walk needs. `None` when
/// reading on cannot help: the ROM lies, the walk needs more than the window holds (a length or
/// offset past 1 MiB is a lie too, refused before reading it), or the window is read whole.
pub(crate) fn read_on(have: usize, err: &VbiosError, part: usize) -> Option<usize> {
    let need = err.rom_needed()?;
    if need > PROM_SIZE || have >= PROM_SIZE || part == 0 {
        return None;
    }
    let want = need
        .max(have.checked_add(1)?)
        .div_ceil(part)
        .checked_mul(part)?;
    Some(want.min(PROM_SIZE))
}

/// The bytes of the PROM window as a reader gets them: the driver's through BAR0 (`prom.rs`),
/// the host tests' from a file.
pub(crate) trait Window {
    /// Why the window could not be read.
    type Err;

    /// Reads the window up to `len` bytes (at most [`PROM_SIZE`]), after what was read.
    fn read_to(&mut self, len: usize) -> Result<(), Self::Err>;

    /// The bytes read so far.
    fn bytes(&self) -> &Untrusted<[u8]>;
}

/// Why reading the VBIOS out of a [`Window`] failed.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ReadError<E> {
    /// The window could not be read.
    Window(E),
    /// The ROM lies.
    Invalid(VbiosError),
}

/// Reads the VBIOS out of `window`: the first `first` bytes, then, after each validation that
/// failed because the bytes ended, as far as [`read_on`] says, in parts of `part` bytes. Ends
/// when the bytes read validate (the caller validates them again to hold the result), when the
/// ROM lies, or when the window is read whole.
pub(crate) fn read_in_parts<W: Window>(
    window: &mut W,
    first: usize,
    part: usize,
) -> Result<(), ReadError<W::Err>> {
    let mut want = first.min(PROM_SIZE);
    loop {
        window.read_to(want).map_err(ReadError::Window)?;
        let err = match window.bytes().validate_ref::<Vbios<'_>>() {
            Ok(_) => return Ok(()),
            Err(e) => e,
        };
        want = read_on(window.bytes().len(), &err, part).ok_or(ReadError::Invalid(err))?;
    }
}

impl fmt::Display for VbiosError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            VbiosError::IfrTruncated { what, at, rom_len } => write!(
                f,
                "IFR header: {what} at {at:#x} is cut by the end of the ROM ({rom_len:#x} bytes)"
            ),
            VbiosError::IfrVersion { version } => write!(
                f,
                "IFR header at 0x0: version {version} unknown (1, 2 and 3 are known)"
            ),
            VbiosError::RomDirectory { at, found } => write!(
                f,
                "IFR ROM directory at {at:#x}: signature {found:#010x}, not RFRD"
            ),
            VbiosError::RomOffsetOutside { offset, rom_len } => write!(
                f,
                "IFR header: PCI ROM offset {offset:#x} outside the ROM ({rom_len:#x} bytes)"
            ),
            VbiosError::RomOffsetMisaligned { offset } => write!(
                f,
                "IFR header: PCI ROM offset {offset:#x} is not 4-byte aligned"
            ),
            VbiosError::ImageTruncated { index, at, rom_len } => write!(
                f,
                "image {index} at {at:#x}: the ROM ({rom_len:#x} bytes) ends inside its ROM header"
            ),
            VbiosError::NoLastImage { index, at } => write!(
                f,
                "image {index} at {at:#x}: the ROM ends there, but no image was the last"
            ),
            VbiosError::RomSignature { index, at, found } => write!(
                f,
                "image {index} at {at:#x}: ROM signature {found:#06x}, not 0xaa55 or 0x4e56"
            ),
            VbiosError::PcirOutside { index, at, pcir } => write!(
                f,
                "image {index} at {at:#x}: PCIR pointer {pcir:#x} leads outside the ROM"
            ),
            VbiosError::PcirSignature { index, at, found } => write!(
                f,
                "image {index} at {at:#x}: PCI data structure signature \"{}\", not PCIR or \
                 NPDS",
                found.escape_ascii()
            ),
            VbiosError::PcirLengthZero { index, at } => {
                write!(f, "image {index} at {at:#x}: PCIR length 0")
            }
            VbiosError::NpdeLongerThanPcir {
                index,
                at,
                npde_len,
                pcir_len,
            } => write!(
                f,
                "image {index} at {at:#x}: NPDE sub-image length {npde_len:#x} exceeds the \
                 PCIR image length {pcir_len:#x}"
            ),
            VbiosError::ImagePastEnd {
                index,
                at,
                len,
                rom_len,
            } => write!(
                f,
                "image {index} at {at:#x}: length {len:#x} runs past the end of the ROM \
                 ({rom_len:#x} bytes)"
            ),
            VbiosError::HeadersOutsideImage {
                index,
                at,
                len,
                headers_end,
            } => write!(
                f,
                "image {index} at {at:#x}: its headers end at +{headers_end:#x}, past its \
                 length {len:#x}"
            ),
            VbiosError::TooManyImages { at } => write!(
                f,
                "image at {at:#x}: more than {} images in the chain",
                rom::MAX_IMAGES
            ),
            VbiosError::NoPciAtImage => {
                f.write_str("no PCI-AT image (code type 0x00) before the FWSEC images")
            }
            VbiosError::NoFwsecImage => f.write_str("no FWSEC image (code type 0xe0)"),
            VbiosError::NoBit { image_at } => {
                write!(f, "PCI-AT image at {image_at:#x}: no BIT header")
            }
            VbiosError::BitTruncated { at } => write!(
                f,
                "BIT header at {at:#x}: cut by the end of the PCI-AT image"
            ),
            VbiosError::BitSizes {
                at,
                header_size,
                token_size,
            } => write!(
                f,
                "BIT header at {at:#x}: header size {header_size} or token size {token_size} \
                 too small"
            ),
            VbiosError::BitTokensOutside {
                at,
                count,
                token_size,
            } => write!(
                f,
                "BIT header at {at:#x}: {count} tokens of {token_size} bytes run past the \
                 PCI-AT image"
            ),
            VbiosError::NoFalconToken { at } => {
                write!(f, "BIT at {at:#x}: no falcon data token (0x70)")
            }
            VbiosError::FalconTokenData { at, offset, size } => write!(
                f,
                "BIT falcon data token at {at:#x}: data at +{offset:#x}, {size} bytes, not a \
                 pointer inside the PCI-AT image"
            ),
            VbiosError::FalconDataPointer {
                pointer,
                pci_at_len,
            } => write!(
                f,
                "BIT falcon data pointer {pointer:#x} lies in the PCI-AT image \
                 ({pci_at_len:#x} bytes), not in the FWSEC images"
            ),
            VbiosError::FalconDataOutside { pointer, fwsec_len } => write!(
                f,
                "BIT falcon data pointer {pointer:#x} leads past the FWSEC images \
                 ({fwsec_len:#x} bytes)"
            ),
            VbiosError::PmuTableSizes {
                at,
                header_len,
                entry_len,
            } => write!(
                f,
                "PMU lookup table at {at:#x}: header length {header_len} or entry length \
                 {entry_len} too small"
            ),
            VbiosError::PmuTableOutside {
                at,
                count,
                entry_len,
            } => write!(
                f,
                "PMU lookup table at {at:#x}: {count} entries of {entry_len} bytes run past \
                 the FWSEC images"
            ),
            VbiosError::NoFwsecEntry { at, count } => write!(
                f,
                "PMU lookup table at {at:#x}: none of its {count} entries is FWSEC (0x85)"
            ),
            VbiosError::UcodePointer { at, pointer } => write!(
                f,
                "PMU lookup table entry at {at:#x}: FWSEC pointer {pointer:#x} lies in the \
                 PCI-AT image"
            ),
            VbiosError::DescOutside { pointer, fwsec_len } => write!(
                f,
                "FWSEC ucode descriptor at pointer {pointer:#x}: cut by the end of the FWSEC \
                 images ({fwsec_len:#x} bytes)"
            ),
            VbiosError::DescInvalid { at, hdr } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: header {hdr:#010x} lacks the valid flag"
            ),
            VbiosError::DescVersion { at, version } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: version {version} unknown (2 and 3 are \
                 known)"
            ),
            VbiosError::DescSize { at, size, needed } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: size {size:#x} smaller than the {needed:#x} \
                 bytes of the descriptor and its signatures"
            ),
            VbiosError::UcodeOutside { at, imem, dmem } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: IMEM {imem:#x} and DMEM {dmem:#x} bytes run \
                 past the FWSEC images"
            ),
            VbiosError::ImemSecOutside {
                at,
                start,
                size,
                imem,
            } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: secure IMEM {start:#x}+{size:#x} outside \
                 the IMEM of {imem:#x} bytes"
            ),
            VbiosError::DmemOutside {
                at,
                offset,
                size,
                ucode_len,
            } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: DMEM {offset:#x}+{size:#x} outside the \
                 ucode of {ucode_len:#x} bytes"
            ),
            VbiosError::PkcOutside { at, offset, dmem } => write!(
                f,
                "FWSEC ucode descriptor at {at:#x}: signature location {offset:#x} outside the \
                 DMEM of {dmem:#x} bytes"
            ),
            VbiosError::AppifOutside { offset, dmem } => write!(
                f,
                "FWSEC application interface table at DMEM {offset:#x}: outside the DMEM of \
                 {dmem:#x} bytes"
            ),
            VbiosError::AppifVersion { at, version } => write!(
                f,
                "FWSEC application interface table at {at:#x}: version {version}, not 1"
            ),
            VbiosError::AppifSizes {
                at,
                header_size,
                entry_size,
            } => write!(
                f,
                "FWSEC application interface table at {at:#x}: header size {header_size} or \
                 entry size {entry_size} too small"
            ),
            VbiosError::AppifEntriesOutside {
                at,
                count,
                entry_size,
            } => write!(
                f,
                "FWSEC application interface table at {at:#x}: {count} entries of \
                 {entry_size} bytes run past the DMEM"
            ),
            VbiosError::NoDmemMapper { at, count } => write!(
                f,
                "FWSEC application interface table at {at:#x}: none of its {count} entries is \
                 the DMEM mapper (4)"
            ),
            VbiosError::DmemMapperOutside { offset, dmem } => write!(
                f,
                "FWSEC DMEM mapper at DMEM {offset:#x}: outside the DMEM of {dmem:#x} bytes"
            ),
            VbiosError::DmapSignature { at, found } => write!(
                f,
                "FWSEC DMEM mapper at {at:#x}: signature \"{}\", not DMAP",
                found.escape_ascii()
            ),
            VbiosError::CmdInOutside {
                at,
                offset,
                size,
                dmem,
            } => write!(
                f,
                "FWSEC DMEM mapper at {at:#x}: command input buffer {offset:#x}+{size:#x} \
                 outside the DMEM of {dmem:#x} bytes"
            ),
        }
    }
}

/// A validated VBIOS. Offsets are in the ROM as the driver read it (the PROM window's bytes),
/// IFR header included where the ROM starts with one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vbios<'a> {
    /// The IFR header, if the ROM starts with one.
    pub(crate) ifr: Option<Ifr>,
    /// The image chain, in ROM order, the last one flagged last.
    pub(crate) images: Images,
    /// The PCI-AT image (the first one of code type 0x00).
    pub(crate) pci_at: Image,
    /// The FWSEC images: from the first image of code type 0xE0 to the end of the chain, as
    /// one block (upstream's FWSEC section).
    pub(crate) fwsec_section: FwsecSection,
    /// The BIT table of the PCI-AT image and its falcon data token.
    pub(crate) bit: Bit,
    /// The FWSEC ucode.
    pub(crate) fwsec: Fwsec<'a>,
}

impl<'a> Validator<&'a Untrusted<[u8]>> for Vbios<'a> {
    type Err = VbiosError;

    fn validate(rom: &'a [u8]) -> Result<Vbios<'a>, VbiosError> {
        let ifr = rom::read_ifr(rom)?;
        let start = ifr.map_or(0, |h| h.rom_offset);
        let images = rom::read_chain(rom, start)?;

        // As upstream: the first FWSEC image starts the FWSEC section, which runs to the end of
        // the chain whatever the images after it are; the PCI-AT image is the first one of its
        // type before it (later ones are ignored).
        let first_fwsec = images
            .iter()
            .position(|i| i.image_type == ImageType::FwSec)
            .ok_or(VbiosError::NoFwsecImage)?;
        let pci_at = images
            .iter()
            .take(first_fwsec)
            .find(|i| i.image_type == ImageType::PciAt)
            .copied()
            .ok_or(VbiosError::NoPciAtImage)?;
        let fwsec_start = images
            .get(first_fwsec)
            .map(|i| i.offset)
            .ok_or(VbiosError::NoFwsecImage)?;
        let fwsec_section = FwsecSection {
            offset: fwsec_start,
            len: images
                .end()
                .checked_sub(fwsec_start)
                .ok_or(VbiosError::NoFwsecImage)?,
            pci_at_len: pci_at.len,
        };

        let bit = bit::read_bit(rom, &pci_at)?;
        let fwsec = fwsec::read_fwsec(rom, &fwsec_section, bit.falcon_data.pointer)?;
        Ok(Vbios {
            ifr,
            images,
            pci_at,
            fwsec_section,
            bit,
            fwsec,
        })
    }
}

/// Reads a `T` at `at` in `bytes`, or `None` where it does not fit. Multi-byte fields are read
/// in the CPU's byte order, which is the ROM's (little-endian) on every architecture the driver
/// builds for, as upstream reads them.
fn read_at<T: zerocopy::FromBytes>(bytes: &[u8], at: usize) -> Option<T> {
    let rest = bytes.get(at..)?;
    T::read_from_prefix(rest).ok().map(|(value, _)| value)
}

/// Reads a little-endian `u16` at `at` in `bytes`, or `None` where it does not fit.
fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    read_at::<[u8; 2]>(bytes, at).map(u16::from_le_bytes)
}

/// Reads a little-endian `u32` at `at` in `bytes`, or `None` where it does not fit.
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    read_at::<[u8; 4]>(bytes, at).map(u32::from_le_bytes)
}

/// `offset..offset + len` of `bytes`, or `None` where it does not fit.
fn range(bytes: &[u8], offset: usize, len: usize) -> Option<&[u8]> {
    bytes.get(offset..offset.checked_add(len)?)
}

/// A `u32` from the ROM as an offset or length (a no-op on the kernel's 32- and 64-bit
/// targets, checked all the same).
fn to_usize(value: u32) -> Option<usize> {
    usize::try_from(value).ok()
}

/// One line on what the ROM holds, for the driver's debug log.
impl fmt::Display for Vbios<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let fwsec = &self.fwsec;
        write!(
            f,
            "{} images ending at {:#x}{}, PCI-AT image at {:#x} with the BIT at {:#x}, FWSEC \
             images at {:#x}, FWSEC descriptor v{} at {:#x}: IMEM {:#x} and DMEM {:#x} bytes, {} \
             signatures, DMEM mapper at DMEM {:#x}",
            self.images.len(),
            self.images.end(),
            if self.ifr.is_some() {
                " after an IFR header"
            } else {
                ""
            },
            self.pci_at.offset,
            self.bit.offset,
            self.fwsec_section.offset,
            fwsec.desc.version(),
            fwsec.desc_offset,
            fwsec.imem.bytes.len(),
            fwsec.dmem.bytes.len(),
            fwsec.signatures.bytes.len() / SIGNATURE_SIZE,
            fwsec.dmem_mapper.dmem_offset,
        )
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_vbios)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    /// One 512-byte PCI-AT image: the ROM header, a PCIR right after it (length 1, code type
    /// 0x00, last as given), no NPDE; nothing else (no BIT).
    fn image(last: bool) -> [u8; 512] {
        let mut rom = [0u8; 512];
        rom[0] = 0x55;
        rom[1] = 0xaa;
        rom[0x18] = 0x20;
        rom[0x20..0x24].copy_from_slice(b"PCIR");
        rom[0x20 + 0x0a] = 0x18;
        rom[0x20 + 0x10] = 1;
        rom[0x20 + 0x15] = if last { 0x80 } else { 0 };
        rom
    }

    fn validate(rom: &[u8]) -> Result<Vbios<'_>, VbiosError> {
        Untrusted::new_untrusted_ref(rom).validate_ref::<Vbios<'_>>()
    }

    #[test]
    fn a_rom_without_its_signature_is_a_lie_more_bytes_cannot_cure() {
        let mut rom = image(true);
        rom[0] = 0;
        let err = validate(&rom).err();
        assert_eq!(
            err,
            Some(VbiosError::RomSignature {
                index: 0,
                at: 0,
                found: 0xaa00
            })
        );
        assert_eq!(err.and_then(|e| read_on(rom.len(), &e, 0x400)), None);
    }

    #[test]
    fn a_zero_image_length_is_refused() {
        let mut rom = image(true);
        rom[0x20 + 0x10] = 0;
        assert_eq!(
            validate(&rom).err(),
            Some(VbiosError::PcirLengthZero { index: 0, at: 0 })
        );
    }

    #[test]
    fn a_chain_cut_by_the_bytes_read_asks_for_one_part_more() {
        let rom = image(false);
        let err = validate(&rom).err();
        assert_eq!(err, Some(VbiosError::NoLastImage { index: 1, at: 512 }));
        assert_eq!(err.and_then(|e| read_on(512, &e, 0x400)), Some(0x400));
    }

    #[test]
    fn an_image_past_the_bytes_read_asks_for_all_of_it_within_the_window() {
        let mut rom = image(true);
        rom[0x20 + 0x10] = 0x10; // 8 KiB
        let err = validate(&rom).err();
        assert!(matches!(
            err,
            Some(VbiosError::ImagePastEnd { len: 0x2000, .. })
        ));
        assert_eq!(err.and_then(|e| read_on(512, &e, 0x400)), Some(0x2000));
        // A length past the window is a lie; nothing more once the window is read whole.
        let huge = VbiosError::ImagePastEnd {
            index: 0,
            at: 0,
            len: 2 * PROM_SIZE,
            rom_len: PROM_SIZE / 2,
        };
        assert_eq!(read_on(PROM_SIZE / 2, &huge, 0x400), None);
        let to_the_end = VbiosError::ImagePastEnd {
            index: 0,
            at: 0,
            len: PROM_SIZE,
            rom_len: PROM_SIZE / 2,
        };
        assert_eq!(read_on(PROM_SIZE / 2, &to_the_end, 0x400), Some(PROM_SIZE));
        assert_eq!(read_on(PROM_SIZE, &to_the_end, 0x400), None);
    }

    #[test]
    fn a_whole_chain_without_fwsec_is_refused_for_it() {
        assert_eq!(validate(&image(true)).err(), Some(VbiosError::NoFwsecImage));
    }
}
