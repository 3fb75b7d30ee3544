// SPDX-License-Identifier: GPL-2.0

//! The FWSEC ucode in the FWSEC images: the PMU lookup table the BIT points to, its FWSEC entry
//! (application id 0x85), the falcon ucode descriptor there (v2 on Turing and GA100, v3 from
//! GA102 on), the signatures after a v3 descriptor, the ucode's IMEM and DMEM, and the DMEM
//! mapper application interface (`DMAP`) in the DMEM, which takes the FRTS command.
//!
//! Layout, as upstream reads it (nova-core's `vbios.rs` and `firmware/fwsec.rs`, nouveau's
//! `gsp/fwsec.c`):
//!
//! ```text
//! PMU lookup table:   version, header length, entry length, entry count; entries of
//!                     (application id u8, target id u8, pointer u32)
//! ucode descriptor:   header u32 (bit 0 valid, bits 15:8 version, bits 31:16 size), then the
//!                     v2 or v3 fields; a v3 one is followed by its signatures (384 bytes each),
//!                     all inside the size
//! ucode:              right after the descriptor's size: IMEM load size bytes of IMEM, then
//!                     the DMEM (v3: right after the IMEM; v2: at the descriptor's DMEM offset)
//! application interface table, at the descriptor's interface offset in DMEM:
//!                     version 1, header size, entry size, entry count; entries of
//!                     (id u32, DMEM offset u32); id 4 is the DMEM mapper
//! DMEM mapper:        `DMAP`, version, size, command input and output buffers, ...
//! ```
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use super::{
    range,
    read_at,
    to_usize,
    u32_at,
    VbiosError, //
};

/// Application id of the production FWSEC ucode in the PMU lookup table.
pub(crate) const APP_ID_FWSEC_PROD: u8 = 0x85;
/// Id of the DMEM mapper application interface (`NVFW_FALCON_APPIF_ID_DMEMMAPPER`).
pub(crate) const APPIF_ID_DMEMMAPPER: u32 = 4;
/// Size of one FWSEC signature (RSA-3K).
pub(crate) const SIGNATURE_SIZE: usize = 384;
/// The descriptor header's valid flag.
const DESC_VALID: u32 = 1;
/// The DMEM mapper's signature.
const DMAP_SIGNATURE: [u8; 4] = *b"DMAP";

/// The FWSEC images as one block (upstream's FWSEC section), and how the ROM's pointers into it
/// are read.
///
/// The BIT falcon data pointer and the PMU lookup table's ucode pointers count from the start
/// of the PCI-AT image as if the FWSEC images followed it directly: the images between them
/// (the EFI image) are not counted. A pointer therefore lies `pointer - pci_at_len` bytes into
/// the FWSEC section, which starts at the first FWSEC image (upstream nova-core subtracts the
/// PCI-AT image's length; nouveau's `nvbios_addr` maps addresses past the first image to the
/// first image of type 0xE0 the same way). A pointer below `pci_at_len` would point into the
/// PCI-AT image; upstream rejects it, and so does the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FwsecSection {
    /// Where the first FWSEC image starts in the ROM.
    pub(crate) offset: usize,
    /// From there to the end of the image chain.
    pub(crate) len: usize,
    /// The PCI-AT image's length.
    pub(crate) pci_at_len: usize,
}

impl FwsecSection {
    /// Where `pointer` leads in the section (relative to it), or `None` if it lies in the
    /// PCI-AT image.
    fn locate(&self, pointer: u32) -> Option<usize> {
        to_usize(pointer)?.checked_sub(self.pci_at_len)
    }
}

/// The PMU lookup table's header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct PmuTableHeader {
    version: u8,
    header_len: u8,
    entry_len: u8,
    entry_count: u8,
}

/// A PMU lookup table entry.
#[repr(C, packed)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct PmuTableEntry {
    application_id: u8,
    target_id: u8,
    /// Pointer to the application's ucode descriptor (see [`FwsecSection`]).
    pointer: u32,
}

/// The falcon ucode descriptor, version 2 (`FALCON_UCODE_DESC_V2`): Turing and GA100.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, zerocopy_derive::FromBytes)]
pub(crate) struct DescV2 {
    /// Bit 0 valid, bits 15:8 version (2), bits 31:16 the descriptor's size.
    pub(crate) hdr: u32,
    /// Size of the ucode after the descriptor.
    pub(crate) stored_size: u32,
    /// Size of the ucode uncompressed (equal to `stored_size`: not compressed).
    pub(crate) uncompressed_size: u32,
    /// Code entry point.
    pub(crate) virtual_entry: u32,
    /// Offset of the application interface table in DMEM.
    pub(crate) interface_offset: u32,
    /// IMEM address the code is loaded at.
    pub(crate) imem_phys_base: u32,
    /// Bytes of code loaded into IMEM (secure and non-secure).
    pub(crate) imem_load_size: u32,
    /// Virtual IMEM address (tag) of the code's start.
    pub(crate) imem_virt_base: u32,
    /// Virtual IMEM address of the secure segment.
    pub(crate) imem_sec_base: u32,
    /// Size of the secure segment.
    pub(crate) imem_sec_size: u32,
    /// Offset of the DMEM in the ucode.
    pub(crate) dmem_offset: u32,
    /// DMEM address the data is loaded at.
    pub(crate) dmem_phys_base: u32,
    /// Bytes of data loaded into DMEM.
    pub(crate) dmem_load_size: u32,
    /// "Alternate" IMEM load size.
    pub(crate) alt_imem_load_size: u32,
    /// "Alternate" DMEM load size.
    pub(crate) alt_dmem_load_size: u32,
}

/// The falcon ucode descriptor, version 3 (`FALCON_UCODE_DESC_V3`): GA102 and later.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, zerocopy_derive::FromBytes)]
pub(crate) struct DescV3 {
    /// Bit 0 valid, bits 15:8 version (3), bits 31:16 the descriptor's size, signatures
    /// included.
    pub(crate) hdr: u32,
    /// Size of the ucode after the descriptor.
    pub(crate) stored_size: u32,
    /// Offset in DMEM where the chosen signature is patched in.
    pub(crate) pkc_data_offset: u32,
    /// Offset of the application interface table in DMEM.
    pub(crate) interface_offset: u32,
    /// IMEM address the code is loaded at.
    pub(crate) imem_phys_base: u32,
    /// Bytes of code loaded into IMEM.
    pub(crate) imem_load_size: u32,
    /// Virtual IMEM address (tag) of the code's start.
    pub(crate) imem_virt_base: u32,
    /// DMEM address the data is loaded at.
    pub(crate) dmem_phys_base: u32,
    /// Bytes of data loaded into DMEM.
    pub(crate) dmem_load_size: u32,
    /// Falcon engines the ucode may run on.
    pub(crate) engine_id_mask: u16,
    /// Ucode id, which names the fuse register giving the signature version.
    pub(crate) ucode_id: u8,
    /// How many signatures follow the descriptor.
    pub(crate) signature_count: u8,
    /// One bit per signature version included, in signature order.
    pub(crate) signature_versions: u16,
    reserved: u16,
}

/// The FWSEC ucode descriptor, by version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UcodeDesc {
    /// Version 2: Turing and GA100; no signatures in the ROM.
    V2(DescV2),
    /// Version 3: GA102 and later; signatures after the descriptor.
    V3(DescV3),
}

impl UcodeDesc {
    /// The descriptor's version.
    pub(crate) fn version(&self) -> u8 {
        match self {
            UcodeDesc::V2(_) => 2,
            UcodeDesc::V3(_) => 3,
        }
    }

    /// Bytes of code loaded into IMEM.
    pub(crate) fn imem_load_size(&self) -> u32 {
        match self {
            UcodeDesc::V2(d) => d.imem_load_size,
            UcodeDesc::V3(d) => d.imem_load_size,
        }
    }

    /// Bytes of data loaded into DMEM.
    pub(crate) fn dmem_load_size(&self) -> u32 {
        match self {
            UcodeDesc::V2(d) => d.dmem_load_size,
            UcodeDesc::V3(d) => d.dmem_load_size,
        }
    }

    /// Offset of the application interface table in DMEM.
    pub(crate) fn interface_offset(&self) -> u32 {
        match self {
            UcodeDesc::V2(d) => d.interface_offset,
            UcodeDesc::V3(d) => d.interface_offset,
        }
    }

    /// How many signatures follow the descriptor (none for v2).
    pub(crate) fn signature_count(&self) -> usize {
        match self {
            UcodeDesc::V2(_) => 0,
            UcodeDesc::V3(d) => usize::from(d.signature_count),
        }
    }

    /// Size of the descriptor's fixed part.
    fn fixed_size(&self) -> usize {
        match self {
            UcodeDesc::V2(_) => core::mem::size_of::<DescV2>(),
            UcodeDesc::V3(_) => core::mem::size_of::<DescV3>(),
        }
    }
}

/// The application interface table's header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct AppifHeader {
    version: u8,
    header_size: u8,
    entry_size: u8,
    entry_count: u8,
}

/// An application interface table entry.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct AppifEntry {
    id: u32,
    /// Offset of the interface in DMEM.
    dmem_offset: u32,
}

/// The DMEM mapper interface (`FALCON_APPIF_DMEMMAPPER_V3`).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct DmemMapperRaw {
    signature: [u8; 4],
    version: u16,
    size: u16,
    cmd_in_buffer_offset: u32,
    cmd_in_buffer_size: u32,
    cmd_out_buffer_offset: u32,
    cmd_out_buffer_size: u32,
    nvf_img_data_buffer_offset: u32,
    nvf_img_data_buffer_size: u32,
    printf_buffer_hdr: u32,
    ucode_build_time_stamp: u32,
    ucode_signature: u32,
    init_cmd: u32,
    ucode_feature: u32,
    ucode_cmd_mask0: u32,
    ucode_cmd_mask1: u32,
    multi_tgt_tbl: u32,
}

/// Offset of `init_cmd` in the DMEM mapper: where the boot writes the command to run.
pub(crate) const DMAP_INIT_CMD_OFFSET: usize = core::mem::offset_of!(DmemMapperRaw, init_cmd);

/// Bytes of the ROM, with where they are in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RomBytes<'a> {
    /// Where they start in the ROM.
    pub(crate) offset: usize,
    /// The bytes.
    pub(crate) bytes: &'a [u8],
}

/// The PMU lookup table, as validated: its entries inside the FWSEC images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PmuTable {
    /// Where it starts in the ROM.
    pub(crate) offset: usize,
    /// Its version.
    pub(crate) version: u8,
    /// How many entries it lists.
    pub(crate) entry_count: u8,
    /// Where its FWSEC entry starts in the ROM.
    pub(crate) fwsec_entry: usize,
    /// The FWSEC entry's target falcon.
    pub(crate) fwsec_target: u8,
}

/// The DMEM mapper interface, as validated: inside the DMEM, signed `DMAP`, its command input
/// buffer inside the DMEM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DmemMapper {
    /// Where it starts in DMEM.
    pub(crate) dmem_offset: usize,
    /// Where it starts in the ROM.
    pub(crate) offset: usize,
    /// Its version (3 in the ROMs seen).
    pub(crate) version: u16,
    /// Its size (64 in the ROMs seen).
    pub(crate) size: u16,
    /// Where the command input buffer (the FRTS command) starts in DMEM.
    pub(crate) cmd_in_offset: u32,
    /// Its size.
    pub(crate) cmd_in_size: u32,
    /// Where the command output buffer starts, in the falcon's address space (not necessarily
    /// DMEM: 0x1000000 in the ROMs seen).
    pub(crate) cmd_out_offset: u32,
    /// Its size.
    pub(crate) cmd_out_size: u32,
    /// The command it runs at start as the ROM has it (the boot overwrites it).
    pub(crate) init_cmd: u32,
}

/// The FWSEC ucode, as validated: every range inside the FWSEC images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fwsec<'a> {
    /// The PMU lookup table.
    pub(crate) pmu_table: PmuTable,
    /// Where the descriptor starts in the ROM.
    pub(crate) desc_offset: usize,
    /// The descriptor.
    pub(crate) desc: UcodeDesc,
    /// The signatures after a v3 descriptor (`desc.signature_count()` of
    /// [`SIGNATURE_SIZE`] bytes; empty for v2).
    pub(crate) signatures: RomBytes<'a>,
    /// The ucode: IMEM load size plus DMEM load size bytes after the descriptor.
    pub(crate) ucode: RomBytes<'a>,
    /// The IMEM image, the ucode's start.
    pub(crate) imem: RomBytes<'a>,
    /// The DMEM image, inside the ucode.
    pub(crate) dmem: RomBytes<'a>,
    /// Where the application interface table starts in the ROM.
    pub(crate) appif_offset: usize,
    /// The DMEM mapper.
    pub(crate) dmem_mapper: DmemMapper,
}

/// Reads the FWSEC ucode the falcon data `pointer` leads to.
pub(super) fn read_fwsec<'a>(
    rom: &'a [u8],
    section: &FwsecSection,
    pointer: u32,
) -> Result<Fwsec<'a>, VbiosError> {
    let fwsec_len = section.len;
    let images = range(rom, section.offset, section.len).ok_or(VbiosError::NoFwsecImage)?;
    // `images` lies at `section.offset` in the ROM: every offset below is relative to it.
    let in_rom = |relative: usize| section.offset.saturating_add(relative);

    let table_at = section
        .locate(pointer)
        .ok_or(VbiosError::FalconDataPointer {
            pointer,
            pci_at_len: section.pci_at_len,
        })?;
    let (pmu_table, desc_pointer) = read_pmu_table(images, section.offset, table_at)
        .map_err(|e| e.unwrap_or(VbiosError::FalconDataOutside { pointer, fwsec_len }))?;

    let desc_at = section
        .locate(desc_pointer)
        .ok_or(VbiosError::UcodePointer {
            at: pmu_table.fwsec_entry,
            pointer: desc_pointer,
        })?;
    let desc_outside = VbiosError::DescOutside {
        pointer: desc_pointer,
        fwsec_len,
    };
    let hdr = u32_at(images, desc_at).ok_or(desc_outside)?;
    let desc_rom = in_rom(desc_at);
    if hdr & DESC_VALID == 0 {
        return Err(VbiosError::DescInvalid { at: desc_rom, hdr });
    }
    let [_, version, size_low, size_high] = hdr.to_le_bytes();
    let desc = match version {
        2 => UcodeDesc::V2(read_at(images, desc_at).ok_or(desc_outside)?),
        3 => UcodeDesc::V3(read_at(images, desc_at).ok_or(desc_outside)?),
        _ => {
            return Err(VbiosError::DescVersion {
                at: desc_rom,
                version,
            })
        }
    };
    // The descriptor's size covers its fixed part and, for v3, the signatures after it; the
    // ucode follows.
    let size = usize::from(u16::from_le_bytes([size_low, size_high]));
    let signatures_len = desc.signature_count() * SIGNATURE_SIZE;
    let needed = desc.fixed_size() + signatures_len;
    if size < needed {
        return Err(VbiosError::DescSize {
            at: desc_rom,
            size,
            needed,
        });
    }
    let signatures_at = desc_at + desc.fixed_size();
    // Inside `images`: the ucode below starts after them and is checked to fit.
    let signatures = range(images, signatures_at, signatures_len).ok_or(desc_outside)?;

    let imem_len = desc.imem_load_size();
    let dmem_len = desc.dmem_load_size();
    let ucode_outside = VbiosError::UcodeOutside {
        at: desc_rom,
        imem: imem_len,
        dmem: dmem_len,
    };
    let ucode_at = desc_at + size;
    let ucode_len = imem_len
        .checked_add(dmem_len)
        .and_then(to_usize)
        .ok_or(ucode_outside)?;
    let ucode = range(images, ucode_at, ucode_len).ok_or(ucode_outside)?;
    let imem_size = to_usize(imem_len).ok_or(ucode_outside)?;
    let dmem_size = to_usize(dmem_len).ok_or(ucode_outside)?;
    let imem = range(ucode, 0, imem_size).ok_or(ucode_outside)?;

    let dmem_in_ucode = match desc {
        UcodeDesc::V2(d) => {
            // Upstream loads the secure segment from `imem_sec_base - imem_virt_base`
            // (saturating) in IMEM.
            let sec_start = d.imem_sec_base.saturating_sub(d.imem_virt_base);
            let sec_outside = VbiosError::ImemSecOutside {
                at: desc_rom,
                start: sec_start,
                size: d.imem_sec_size,
                imem: imem_len,
            };
            let sec_end = sec_start.checked_add(d.imem_sec_size).ok_or(sec_outside)?;
            if sec_end > imem_len {
                return Err(sec_outside);
            }
            // The DMEM is where the descriptor says (nouveau and upstream's DMEM load both read
            // it there; upstream's interface lookup assumes it right after the IMEM, which it is
            // in the ROMs seen).
            let dmem_at = to_usize(d.dmem_offset).unwrap_or(usize::MAX);
            range(ucode, dmem_at, dmem_size).ok_or(VbiosError::DmemOutside {
                at: desc_rom,
                offset: d.dmem_offset,
                size: dmem_len,
                ucode_len,
            })?;
            dmem_at
        }
        UcodeDesc::V3(_) => imem_size,
    };
    let dmem = range(ucode, dmem_in_ucode, dmem_size).ok_or(ucode_outside)?;
    if let UcodeDesc::V3(d) = desc {
        // The boot patches the signature its fuses choose into DMEM here.
        let pkc_end = to_usize(d.pkc_data_offset).and_then(|o| o.checked_add(SIGNATURE_SIZE));
        if d.signature_count > 0 && pkc_end.is_none_or(|end| end > dmem_size) {
            return Err(VbiosError::PkcOutside {
                at: desc_rom,
                offset: d.pkc_data_offset,
                dmem: dmem_size,
            });
        }
    }
    let dmem_rom = in_rom(ucode_at + dmem_in_ucode);

    let (appif_at, dmem_mapper) = read_appif(dmem, dmem_rom, desc.interface_offset())?;
    Ok(Fwsec {
        pmu_table,
        desc_offset: desc_rom,
        desc,
        signatures: RomBytes {
            offset: in_rom(signatures_at),
            bytes: signatures,
        },
        ucode: RomBytes {
            offset: in_rom(ucode_at),
            bytes: ucode,
        },
        imem: RomBytes {
            offset: in_rom(ucode_at),
            bytes: imem,
        },
        dmem: RomBytes {
            offset: dmem_rom,
            bytes: dmem,
        },
        appif_offset: appif_at,
        dmem_mapper,
    })
}

/// Reads the PMU lookup table at `at` in the FWSEC images (which start at `images_rom` in the
/// ROM) and its FWSEC entry's ucode pointer. `Err(None)`: the table's header is cut by the end
/// of the images.
fn read_pmu_table(
    images: &[u8],
    images_rom: usize,
    at: usize,
) -> Result<(PmuTable, u32), Option<VbiosError>> {
    let header: PmuTableHeader = read_at(images, at).ok_or(None)?;
    let rom_at = images_rom + at;
    let header_len = usize::from(header.header_len);
    let entry_len = usize::from(header.entry_len);
    if header_len < core::mem::size_of::<PmuTableHeader>()
        || entry_len < core::mem::size_of::<PmuTableEntry>()
    {
        return Err(Some(VbiosError::PmuTableSizes {
            at: rom_at,
            header_len: header.header_len,
            entry_len: header.entry_len,
        }));
    }
    let entries_at = at + header_len;
    let entries = range(
        images,
        entries_at,
        entry_len * usize::from(header.entry_count),
    )
    .ok_or(Some(VbiosError::PmuTableOutside {
        at: rom_at,
        count: header.entry_count,
        entry_len: header.entry_len,
    }))?;
    let (index, entry) = entries
        .chunks_exact(entry_len)
        .enumerate()
        .filter_map(|(i, e)| Some((i, read_at::<PmuTableEntry>(e, 0)?)))
        .find(|(_, e)| e.application_id == APP_ID_FWSEC_PROD)
        .ok_or(Some(VbiosError::NoFwsecEntry {
            at: rom_at,
            count: header.entry_count,
        }))?;
    let table = PmuTable {
        offset: rom_at,
        version: header.version,
        entry_count: header.entry_count,
        fwsec_entry: rom_at + header_len + index * entry_len,
        fwsec_target: entry.target_id,
    };
    Ok((table, entry.pointer))
}

/// Reads the application interface table at `offset` in `dmem` (which starts at `dmem_rom` in
/// the ROM) and the DMEM mapper it lists. Returns where the table starts in the ROM, and the
/// mapper.
fn read_appif(
    dmem: &[u8],
    dmem_rom: usize,
    offset: u32,
) -> Result<(usize, DmemMapper), VbiosError> {
    let dmem_size = dmem.len();
    let outside = VbiosError::AppifOutside {
        offset,
        dmem: dmem_size,
    };
    let at = to_usize(offset).ok_or(outside)?;
    let header: AppifHeader = read_at(dmem, at).ok_or(outside)?;
    let rom_at = dmem_rom + at;
    if header.version != 1 {
        return Err(VbiosError::AppifVersion {
            at: rom_at,
            version: header.version,
        });
    }
    let header_size = usize::from(header.header_size);
    let entry_size = usize::from(header.entry_size);
    if header_size < core::mem::size_of::<AppifHeader>()
        || entry_size < core::mem::size_of::<AppifEntry>()
    {
        return Err(VbiosError::AppifSizes {
            at: rom_at,
            header_size: header.header_size,
            entry_size: header.entry_size,
        });
    }
    let entries = range(
        dmem,
        at + header_size,
        entry_size * usize::from(header.entry_count),
    )
    .ok_or(VbiosError::AppifEntriesOutside {
        at: rom_at,
        count: header.entry_count,
        entry_size: header.entry_size,
    })?;
    let entry = entries
        .chunks_exact(entry_size)
        .filter_map(|e| read_at::<AppifEntry>(e, 0))
        .find(|e| e.id == APPIF_ID_DMEMMAPPER)
        .ok_or(VbiosError::NoDmemMapper {
            at: rom_at,
            count: header.entry_count,
        })?;

    let mapper_outside = VbiosError::DmemMapperOutside {
        offset: entry.dmem_offset,
        dmem: dmem_size,
    };
    let mapper_at = to_usize(entry.dmem_offset).ok_or(mapper_outside)?;
    let raw: DmemMapperRaw = read_at(dmem, mapper_at).ok_or(mapper_outside)?;
    let mapper_rom = dmem_rom + mapper_at;
    if raw.signature != DMAP_SIGNATURE {
        return Err(VbiosError::DmapSignature {
            at: mapper_rom,
            found: raw.signature,
        });
    }
    // The boot writes the command there: it must lie in the DMEM the falcon gets.
    let cmd_in = to_usize(raw.cmd_in_buffer_offset)
        .zip(to_usize(raw.cmd_in_buffer_size))
        .and_then(|(o, s)| range(dmem, o, s));
    if cmd_in.is_none() {
        return Err(VbiosError::CmdInOutside {
            at: mapper_rom,
            offset: raw.cmd_in_buffer_offset,
            size: raw.cmd_in_buffer_size,
            dmem: dmem_size,
        });
    }
    let mapper = DmemMapper {
        dmem_offset: mapper_at,
        offset: mapper_rom,
        version: raw.version,
        size: raw.size,
        cmd_in_offset: raw.cmd_in_buffer_offset,
        cmd_in_size: raw.cmd_in_buffer_size,
        cmd_out_offset: raw.cmd_out_buffer_offset,
        cmd_out_size: raw.cmd_out_buffer_size,
        init_cmd: raw.init_cmd,
    };
    Ok((rom_at, mapper))
}
