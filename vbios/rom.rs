// SPDX-License-Identifier: GPL-2.0

//! The ROM's layout: the IFR header that may precede the PCI expansion ROM, and the chain of
//! images (ROM header, PCI Data Structure, NVIDIA's PCI Data Extension) that follows.
//!
//! The chain is walked as upstream walks it (nova-core's `VbiosIterator`, nouveau's
//! `nvbios_imagen`): each image starts where the previous one ends; its length and last-image
//! flag are the NPDE's where there is one, else the PCIR's; an NBSI image ends the chain. The
//! GA104 laptop ROM shows why the NPDE wins: its EFI image's PCIR says "last image" (the PCI
//! expansion ROM proper ends there), its NPDE does not, and NVIDIA's images (signature 0x4E56,
//! the FWSEC ones among them) follow directly.
//!
//! The walk reads nothing outside the ROM and ends: every image is at least 512 bytes long and
//! lies inside the ROM, and the chain holds at most [`MAX_IMAGES`].
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use super::{
    read_at,
    to_usize,
    u16_at,
    u32_at,
    VbiosError, //
};

/// Most images a chain may hold: the ROMs seen hold four or five (PCI-AT, EFI, two FWSEC, an
/// NBSI), the bound leaves room for more and keeps the result small.
pub(crate) const MAX_IMAGES: usize = 16;

/// IFR header signature, `NVGI` (`NV_PBUS_IFR_FMT_FIXED0_SIGNATURE_VALUE`).
const IFR_SIGNATURE: u32 = u32::from_le_bytes(*b"NVGI");
/// IFR v3 ROM directory signature, `RFRD` (`NV_ROM_DIRECTORY_IDENTIFIER`).
const ROM_DIRECTORY_SIGNATURE: u32 = u32::from_le_bytes(*b"RFRD");
/// Offset of the PCI ROM offset (`NV_PMGR_ROM_ADDR_OFFSET`) in the IFR v1/v2 extended section.
const IFR_EXT_ROM_ADDR_OFFSET: usize = 4;
/// Size of the redundant firmware flash status section, which the IFR v3 ROM directory follows.
const FLASH_STATUS_SIZE: usize = 4096;
/// Offset of the PCI option ROM offset in the IFR v3 ROM directory.
const ROM_DIRECTORY_PCI_ROM_OFFSET: usize = 8;

/// Signature of a PCI expansion ROM image.
const ROM_SIGNATURE_PCI: u16 = 0xaa55;
/// Signature of NVIDIA's own images ("NV").
const ROM_SIGNATURE_NV: u16 = 0x4e56;
/// Offset of the PCIR pointer in the ROM header.
const ROM_HEADER_PCIR_POINTER: usize = 0x18;
/// Size of the ROM header: the signature, 22 bytes for the processor, the PCIR pointer.
pub(crate) const ROM_HEADER_SIZE: usize = 0x1a;
/// Unit of image lengths.
const IMAGE_LEN_UNIT: usize = 512;
/// The last-image bit of the PCIR's and the NPDE's indicator byte.
const LAST_IMAGE: u8 = 0x80;

/// The IFR header's fixed part (`NV_PBUS_IFR_FMT_FIXED0..2`).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct IfrFixed {
    /// `NVGI`.
    signature: u32,
    /// Bits 30:16 the fixed data size (the offset of the extended section), bits 15:8 the
    /// software version.
    fixed1: u32,
    /// Bits 19:0 the total data size (where the v3 flash status offset is).
    fixed2: u32,
}

impl IfrFixed {
    /// `VERSIONSW`, bits 15:8 of `FIXED1`.
    fn version(&self) -> u8 {
        let [_, version, _, _] = self.fixed1.to_le_bytes();
        version
    }

    /// `FIXED_DATA_SIZE`, bits 30:16 of `FIXED1`: where the v1/v2 extended section starts.
    fn fixed_data_size(&self) -> usize {
        let [_, _, low, high] = self.fixed1.to_le_bytes();
        usize::from(u16::from_le_bytes([low, high & 0x7f]))
    }

    /// `TOTAL_DATA_SIZE`, bits 19:0 of `FIXED2`: where the v3 flash status offset is.
    fn total_data_size(&self) -> usize {
        let [low, mid, high, _] = self.fixed2.to_le_bytes();
        usize::from(low) | (usize::from(mid) << 8) | (usize::from(high & 0xf) << 16)
    }
}

/// The PCI Data Structure (PCI Firmware Specification), the part the driver reads.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Pcir {
    /// `PCIR`, or `NPDS` in NVIDIA's images.
    signature: [u8; 4],
    vendor_id: u16,
    device_id: u16,
    device_list_ptr: u16,
    /// Length of this structure, which the NPDE follows (16-byte aligned).
    struct_len: u16,
    struct_rev: u8,
    class_code: [u8; 3],
    /// Image length in 512-byte units.
    image_len: u16,
    vendor_rom_rev: u16,
    /// Code type: 0x00 PCI-AT, 0x03 EFI, 0x70 NBSI, 0xE0 FWSEC.
    code_type: u8,
    /// Bit 7: last image.
    last_image: u8,
    max_runtime_image_len: u16,
}

/// The PCI Data Structure and the NPDE that may follow it, as far as the driver reads them.
pub(crate) const PCIR_AND_NPDE_SIZE: usize =
    core::mem::size_of::<Pcir>() + 0x10 + core::mem::size_of::<Npde>();

/// The most bytes of the IFR header the walk reads at once (its fixed part, the v1/v2 extended
/// section's ROM offset, the v3 ROM directory's words).
pub(crate) const IFR_PART_MAX: usize = core::mem::size_of::<IfrFixed>() + 4;

/// NVIDIA's PCI Data Extension, the part the driver reads.
#[repr(C, packed)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Npde {
    /// `NPDE`.
    signature: [u8; 4],
    rev: u16,
    len: u16,
    /// Sub-image length in 512-byte units.
    subimage_len: u16,
    /// Bit 7: last image.
    last_image: u8,
}

/// The IFR header, as validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ifr {
    /// Its software version (1, 2 or 3).
    pub(crate) version: u8,
    /// Where the PCI expansion ROM starts in the ROM: inside it and 4-byte aligned.
    pub(crate) rom_offset: usize,
}

/// What an image holds, by its PCIR code type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ImageType {
    /// 0x00: the x86 BIOS, with the BIT table.
    #[default]
    PciAt,
    /// 0x03: the UEFI driver.
    Efi,
    /// 0x70: Notebook System Information; ends the chain.
    Nbsi,
    /// 0xE0: NVIDIA's firmware images, FWSEC among them.
    FwSec,
    /// Any other code type.
    Other(u8),
}

impl From<u8> for ImageType {
    fn from(code: u8) -> Self {
        match code {
            0x00 => ImageType::PciAt,
            0x03 => ImageType::Efi,
            0x70 => ImageType::Nbsi,
            0xe0 => ImageType::FwSec,
            other => ImageType::Other(other),
        }
    }
}

impl ImageType {
    /// The PCIR code type.
    #[cfg_attr(
        CONFIG_RUST,
        expect(
            dead_code,
            reason = "the host crate's checks compare it; the driver matches types"
        )
    )]
    pub(crate) fn code(self) -> u8 {
        match self {
            ImageType::PciAt => 0x00,
            ImageType::Efi => 0x03,
            ImageType::Nbsi => 0x70,
            ImageType::FwSec => 0xe0,
            ImageType::Other(code) => code,
        }
    }
}

/// One image of the chain, as validated: inside the ROM, its headers inside itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Image {
    /// Where it starts in the ROM.
    pub(crate) offset: usize,
    /// Its length in bytes (a multiple of 512, not 0): the NPDE's where there is one.
    pub(crate) len: usize,
    /// Its code type.
    pub(crate) image_type: ImageType,
    /// Whether it ends the chain (the NPDE's flag where there is one; NBSI images always do).
    pub(crate) last: bool,
    /// The PCIR's vendor id.
    pub(crate) vendor_id: u16,
    /// The PCIR's device id.
    pub(crate) device_id: u16,
}

impl Image {
    /// Where it ends in the ROM (inside the ROM, hence no overflow).
    pub(crate) fn end(&self) -> usize {
        self.offset.saturating_add(self.len)
    }
}

/// The image chain, in ROM order, without gaps (kept in place: no allocation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Images {
    list: [Image; MAX_IMAGES],
    count: usize,
}

impl Images {
    /// The images, in ROM order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Image> {
        self.list.iter().take(self.count)
    }

    /// Image `index` of the chain.
    pub(crate) fn get(&self, index: usize) -> Option<&Image> {
        self.list.get(..self.count)?.get(index)
    }

    /// How many images the chain holds (at least one).
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Where the chain ends in the ROM.
    pub(crate) fn end(&self) -> usize {
        self.iter().last().map_or(0, Image::end)
    }
}

/// Reads the IFR header, if the ROM starts with one, and the PCI ROM offset it gives.
///
/// The PROM window starts with the IFR header where the hardware does not skip it: on GA100,
/// which has no display engine and hence no other way to the VBIOS, and in a dump of the whole
/// flash. On the other chips the IFR has applied the offset and the window starts with the
/// first image. Like upstream, the driver therefore parses the header whenever the ROM starts
/// with its signature, whatever the chip, and takes the ROM to start with an image otherwise.
pub(super) fn read_ifr(rom: &[u8]) -> Result<Option<Ifr>, VbiosError> {
    if u32_at(rom, 0) != Some(IFR_SIGNATURE) {
        return Ok(None);
    }
    let rom_len = rom.len();
    let truncated = |what, at| VbiosError::IfrTruncated { what, at, rom_len };
    let fixed: IfrFixed = read_at(rom, 0).ok_or(truncated("fixed header", 0))?;
    let version = fixed.version();
    let offset = match version {
        1 | 2 => {
            let at = fixed.fixed_data_size() + IFR_EXT_ROM_ADDR_OFFSET;
            u32_at(rom, at).ok_or(truncated("extended section's PCI ROM offset", at))?
        }
        3 => {
            let at = fixed.total_data_size();
            let status = u32_at(rom, at).ok_or(truncated("flash status offset", at))?;
            let dir = to_usize(status)
                .and_then(|s| s.checked_add(FLASH_STATUS_SIZE))
                .unwrap_or(usize::MAX);
            let signature = u32_at(rom, dir).ok_or(truncated("ROM directory", dir))?;
            if signature != ROM_DIRECTORY_SIGNATURE {
                return Err(VbiosError::RomDirectory {
                    at: dir,
                    found: signature,
                });
            }
            let at = dir.saturating_add(ROM_DIRECTORY_PCI_ROM_OFFSET);
            u32_at(rom, at).ok_or(truncated("ROM directory's PCI ROM offset", at))?
        }
        _ => return Err(VbiosError::IfrVersion { version }),
    };
    let rom_offset = to_usize(offset)
        .filter(|&o| o < rom_len)
        .ok_or(VbiosError::RomOffsetOutside { offset, rom_len })?;
    if rom_offset % 4 != 0 {
        return Err(VbiosError::RomOffsetMisaligned { offset });
    }
    Ok(Some(Ifr {
        version,
        rom_offset,
    }))
}

/// Reads image `index` at `at`: its headers, length and last flag.
fn read_image(rom: &[u8], index: usize, at: usize) -> Result<Image, VbiosError> {
    let rom_len = rom.len();
    let image = rom
        .get(at..)
        .filter(|i| i.len() >= ROM_HEADER_SIZE)
        .ok_or(VbiosError::ImageTruncated { index, at, rom_len })?;
    let signature = u16_at(image, 0).unwrap_or(0);
    if signature != ROM_SIGNATURE_PCI && signature != ROM_SIGNATURE_NV {
        return Err(VbiosError::RomSignature {
            index,
            at,
            found: signature,
        });
    }
    let pcir_ptr = u16_at(image, ROM_HEADER_PCIR_POINTER).unwrap_or(0);
    let pcir_at = usize::from(pcir_ptr);
    let pcir: Pcir = read_at(image, pcir_at).ok_or(VbiosError::PcirOutside {
        index,
        at,
        pcir: pcir_ptr,
    })?;
    if &pcir.signature != b"PCIR" && &pcir.signature != b"NPDS" {
        return Err(VbiosError::PcirSignature {
            index,
            at,
            found: pcir.signature,
        });
    }
    if pcir.image_len == 0 {
        return Err(VbiosError::PcirLengthZero { index, at });
    }
    let pcir_len = usize::from(pcir.image_len) * IMAGE_LEN_UNIT;
    let image_type = ImageType::from(pcir.code_type);
    let mut headers_end = pcir_at + core::mem::size_of::<Pcir>();
    // An NBSI image has no NPDE (nouveau does not look for one) and ends the chain.
    let npde = if image_type == ImageType::Nbsi {
        None
    } else {
        read_npde(image, pcir_at, &pcir)
    };
    let (len, last) = match npde {
        _ if image_type == ImageType::Nbsi => (pcir_len, true),
        Some((npde_at, npde)) => {
            let npde_len = usize::from(npde.subimage_len) * IMAGE_LEN_UNIT;
            // The NPDE describes a sub-image of what the PCIR describes (a PCI-AT image's PCIR
            // may cover the images after it, for the system BIOS to copy them all); a longer
            // sub-image means one of the two lies.
            if npde_len > pcir_len {
                return Err(VbiosError::NpdeLongerThanPcir {
                    index,
                    at,
                    npde_len,
                    pcir_len,
                });
            }
            headers_end = npde_at + core::mem::size_of::<Npde>();
            (npde_len, npde.last_image & LAST_IMAGE != 0)
        }
        None => (pcir_len, pcir.last_image & LAST_IMAGE != 0),
    };
    if len > image.len() {
        return Err(VbiosError::ImagePastEnd {
            index,
            at,
            len,
            rom_len,
        });
    }
    if headers_end > len {
        return Err(VbiosError::HeadersOutsideImage {
            index,
            at,
            len,
            headers_end,
        });
    }
    Ok(Image {
        offset: at,
        len,
        image_type,
        last,
        vendor_id: pcir.vendor_id,
        device_id: pcir.device_id,
    })
}

/// The NPDE of an image and where it is (relative to the image), if it has a usable one: it
/// follows the PCIR at the next 16-byte boundary (relative to the image, as upstream computes
/// it), carries its signature and a sub-image length other than 0 (upstream ignores an NPDE
/// without, and so does the driver).
fn read_npde(image: &[u8], pcir_at: usize, pcir: &Pcir) -> Option<(usize, Npde)> {
    let npde_at = pcir_at
        .checked_add(usize::from(pcir.struct_len))?
        .checked_add(0xf)?
        & !0xf;
    let npde: Npde = read_at(image, npde_at)?;
    if &npde.signature != b"NPDE" || npde.subimage_len == 0 {
        return None;
    }
    Some((npde_at, npde))
}

/// Walks the image chain from `start` to the image that says it is the last.
pub(super) fn read_chain(rom: &[u8], start: usize) -> Result<Images, VbiosError> {
    let mut images = Images {
        list: [Image::default(); MAX_IMAGES],
        count: 0,
    };
    let mut at = start;
    for index in 0..MAX_IMAGES {
        if at == rom.len() && index > 0 {
            return Err(VbiosError::NoLastImage { index, at });
        }
        let image = read_image(rom, index, at)?;
        if let Some(slot) = images.list.get_mut(index) {
            *slot = image;
        }
        images.count = index + 1;
        if image.last {
            return Ok(images);
        }
        // Images follow each other without gaps: upstream aligns the next offset to 512 bytes,
        // which changes nothing for a chain that starts aligned (lengths are in 512-byte units)
        // and would skip bytes of one that does not; nouveau does not align.
        at = image.end();
    }
    Err(VbiosError::TooManyImages { at })
}
