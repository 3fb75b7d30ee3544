// SPDX-License-Identifier: GPL-2.0

//! One image of the PCI expansion ROM: ROM header, PCI data structure
//! (PCIR, or NPDS in NVIDIA's own images), NVIDIA PCI data extension (NPDE),
//! a body, padding to 512-byte blocks and, for the PCI-AT image, the
//! checksum byte.
//!
//! The headers follow the PCI Firmware Specification and the layout of real
//! boards: the PCI-AT image has its PCIR at 0x80 (after an identification
//! string), the EFI image its PCI 3.0 PCIR right after the EFI header at
//! 0x1c, and the FWSEC images a "VN" ROM signature and an NPDS at 0x20. The
//! NPDE follows the PCIR at the next multiple of 16.

use crate::chipset::Chipset;

use super::{
    put,
    put_u16,
    put_u32,
    to_u16, //
};

/// The image types (the PCIR's code type) of the synthetic VBIOS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeType {
    /// x86 legacy BIOS (PC-AT compatible).
    PciAt,
    /// UEFI driver.
    Efi,
    /// NVIDIA's secure firmware partition.
    FwSec,
}

impl CodeType {
    /// The PCIR code type byte.
    pub fn code(self) -> u8 {
        match self {
            CodeType::PciAt => 0x00,
            CodeType::Efi => 0x03,
            CodeType::FwSec => 0xe0,
        }
    }
}

/// Bytes per block of the image lengths.
pub const BLOCK: usize = 512;

/// The PCI vendor id of NVIDIA.
const VENDOR_NVIDIA: u16 = 0x10de;

/// PCIR/NPDS last-image flag (bit 7 of the last-image byte), also used by
/// the NPDE.
const LAST_IMAGE: u8 = 0x80;

/// x86 `retf`: the PCI-AT image's initialisation entry returns at once.
const X86_RETF: u8 = 0xcb;

/// EFI image header: signature, subsystem (boot service driver) and machine
/// type (x64) of the PCI Firmware Specification.
const EFI_SIGNATURE: u32 = 0x0ef1;
const EFI_SUBSYSTEM_BOOT_SERVICE_DRIVER: u16 = 0x000b;
const EFI_MACHINE_X64: u16 = 0x8664;

/// Offset of the EFI image's (absent) PE image.
const EFI_IMAGE_AT: usize = 0x60;

/// Where the ROM header keeps the pointer to the PCI data structure.
const PCIR_POINTER_AT: usize = 0x18;

/// Where the PCI-AT image keeps its identification string.
const ID_STRING_AT: usize = 0x20;

/// What differs between the image types' headers.
struct Shape {
    /// The ROM header's first two bytes.
    rom_signature: [u8; 2],
    pcir_signature: &'static [u8; 4],
    pcir_at: usize,
    /// PCIR revision: 0 (24 bytes) or 3 (PCI 3.0, 28 bytes).
    pcir_revision: u8,
    npde_revision: u16,
    npde_len: u16,
    /// Where the body may start.
    body_at: usize,
}

impl Shape {
    fn of(code_type: CodeType) -> Self {
        match code_type {
            CodeType::PciAt => Shape {
                rom_signature: [0x55, 0xaa],
                pcir_signature: b"PCIR",
                pcir_at: 0x80,
                pcir_revision: 0,
                npde_revision: 0x0101,
                npde_len: 0x14,
                body_at: 0x100,
            },
            CodeType::Efi => Shape {
                rom_signature: [0x55, 0xaa],
                pcir_signature: b"PCIR",
                pcir_at: 0x1c,
                pcir_revision: 3,
                npde_revision: 0x0100,
                npde_len: 0x10,
                body_at: EFI_IMAGE_AT,
            },
            CodeType::FwSec => Shape {
                rom_signature: *b"VN",
                pcir_signature: b"NPDS",
                pcir_at: 0x20,
                pcir_revision: 0,
                npde_revision: 0x0101,
                npde_len: 0x14,
                body_at: 0x60,
            },
        }
    }

    fn pcir_len(&self) -> usize {
        if self.pcir_revision >= 3 {
            0x1c
        } else {
            0x18
        }
    }

    fn npde_at(&self) -> usize {
        (self.pcir_at + self.pcir_len()).next_multiple_of(16)
    }
}

/// An image being built.
pub struct Image {
    code_type: CodeType,
    buf: Vec<u8>,
}

impl Image {
    /// An image of `code_type` for `chip`, headers in place (lengths and
    /// last-image flags are written by [`Image::finish`]).
    pub fn new(code_type: CodeType, chip: &Chipset) -> Self {
        let shape = Shape::of(code_type);
        let mut buf = Vec::new();
        put(&mut buf, 0, &shape.rom_signature);
        put_u16(&mut buf, PCIR_POINTER_AT, to_u16(shape.pcir_at));
        match code_type {
            CodeType::PciAt => {
                put(&mut buf, 3, &[X86_RETF]);
                let id = format!("nova-emu synthetic VBIOS, {} ({})", chip.name, chip.product);
                let room = shape.pcir_at - ID_STRING_AT - 1;
                let id = &id.as_bytes()[..id.len().min(room)];
                put(&mut buf, ID_STRING_AT, id);
            }
            CodeType::Efi => {
                put_u32(&mut buf, 4, EFI_SIGNATURE);
                put_u16(&mut buf, 8, EFI_SUBSYSTEM_BOOT_SERVICE_DRIVER);
                put_u16(&mut buf, 0xa, EFI_MACHINE_X64);
                // 0xc: compression type 0 (none), 0xe..0x16 reserved.
                put_u16(&mut buf, 0x16, to_u16(EFI_IMAGE_AT));
            }
            CodeType::FwSec => {}
        }

        let pcir = shape.pcir_at;
        put(&mut buf, pcir, shape.pcir_signature);
        put_u16(&mut buf, pcir + 0x4, VENDOR_NVIDIA);
        put_u16(&mut buf, pcir + 0x6, chip.device_id);
        put_u16(&mut buf, pcir + 0xa, to_u16(shape.pcir_len()));
        put(&mut buf, pcir + 0xc, &[shape.pcir_revision]);
        // Class code, low byte first; NVIDIA's own images leave it 0.
        if code_type != CodeType::FwSec {
            put(&mut buf, pcir + 0xd, &chip.class.to_le_bytes()[..3]);
        }
        put_u16(&mut buf, pcir + 0x12, 1);
        put(&mut buf, pcir + 0x14, &[code_type.code()]);
        put(&mut buf, pcir + shape.pcir_len() - 1, &[0]);

        let npde = shape.npde_at();
        put(&mut buf, npde, b"NPDE");
        put_u16(&mut buf, npde + 0x4, shape.npde_revision);
        put_u16(&mut buf, npde + 0x6, shape.npde_len);
        put(&mut buf, npde + usize::from(shape.npde_len) - 1, &[0]);

        buf.resize(shape.body_at, 0);
        Image { code_type, buf }
    }

    /// Writes `bytes` at `at` (an offset in the image, past the headers).
    pub fn put(&mut self, at: usize, bytes: &[u8]) {
        debug_assert!(at >= Shape::of(self.code_type).body_at, "{at:#x}");
        put(&mut self.buf, at, bytes);
    }

    /// The image's length so far: where the next free byte is.
    pub fn end(&self) -> usize {
        self.buf.len()
    }

    /// Pads the image to whole blocks, `len` bytes if it asks for more, and
    /// fills in the lengths, the last-image flags of the PCIR and the NPDE
    /// and, for the PCI-AT image, the checksum (the last byte, so that all
    /// bytes add up to 0 modulo 256).
    ///
    /// # Panics
    ///
    /// When the content does not fit in `len` (a fixed length the pointers
    /// were computed from), a mistake in the layout constants.
    pub fn finish(self, len: usize, pcir_last: bool, npde_last: bool) -> Vec<u8> {
        let Image { code_type, mut buf } = self;
        let shape = Shape::of(code_type);
        let checksum = usize::from(code_type == CodeType::PciAt);
        let content = buf.len() + checksum;
        assert!(
            len == 0 || content <= len,
            "synthetic VBIOS: {code_type:?} image content {content:#x} exceeds {len:#x}"
        );
        let total = content.max(len).next_multiple_of(BLOCK);
        buf.resize(total, 0);
        let blocks = to_u16(total / BLOCK);

        match code_type {
            CodeType::PciAt => {
                // The legacy initialisation size, in blocks, is one byte.
                let init = u8::try_from(blocks).unwrap_or(u8::MAX);
                put(&mut buf, 2, &[init]);
            }
            CodeType::Efi => put_u16(&mut buf, 2, blocks),
            CodeType::FwSec => {}
        }
        let flag = |last: bool| if last { LAST_IMAGE } else { 0 };
        put_u16(&mut buf, shape.pcir_at + 0x10, blocks);
        put(&mut buf, shape.pcir_at + 0x15, &[flag(pcir_last)]);
        put_u16(&mut buf, shape.npde_at() + 0x8, blocks);
        put(&mut buf, shape.npde_at() + 0xa, &[flag(npde_last)]);

        if code_type == CodeType::PciAt {
            let sum = buf.iter().fold(0u8, |sum, &b| sum.wrapping_add(b));
            let last = total - 1;
            buf[last] = buf[last].wrapping_sub(sum);
        }
        buf
    }
}
