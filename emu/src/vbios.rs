// SPDX-License-Identifier: GPL-2.0

//! The synthetic VBIOS: a flash image of the emulated board, built from the
//! documented structures for a given chip, which the PROM window
//! ([`crate::prom`]) serves in BAR0.
//!
//! It is laid out like a real board's flash (the public nvflash dumps of a
//! TU106 and a GA104 board were the model), with everything the drivers read
//! and nothing of NVIDIA's: the ucode is bytes of the emulator's own making,
//! keyed by the chip's name ([`keyed_bytes`]), so that a later falcon model
//! can check byte for byte what the driver loaded.
//!
//! Glossary:
//!
//! - **IFR** (Init-From-ROM): the header at the start of the flash, signature
//!   `NVGI`, read by the GPU's boot ROM; its ROM directory (`RFRD`) says
//!   where the PCI expansion ROM starts.
//! - **PCI expansion ROM**: a chain of images, each with a ROM header
//!   (0xAA55, or NVIDIA's 0x4E56 "VN"), a PCI data structure and an NPDE.
//! - **PCIR / NPDS**: the PCI data structure (vendor, device, class, image
//!   length in 512-byte blocks, code type, last-image flag); NVIDIA's own
//!   images call it NPDS.
//! - **NPDE** (NVIDIA PCI Data Extension): follows the PCIR, 16-byte aligned;
//!   its sub-image length and last-image flag take precedence over the
//!   PCIR's, which lets the chain go on after the image the system firmware
//!   sees as the last one.
//! - **PCI-AT image** (code type 0x00): the legacy x86 BIOS; holds the BIT.
//! - **EFI image** (code type 0x03): the UEFI GOP driver (here: no code).
//! - **FWSEC images** (code type 0xE0): NVIDIA's secure firmware partition;
//!   holds the falcon ucode table and the ucode.
//! - **BIT** (BIOS Information Table): header `0xB8FF "BIT\0"` and tokens;
//!   token 0x70 (`'p'`, falcon data) points at the falcon ucode table.
//! - **Falcon ucode table** (upstream's PMU lookup table): entries (application
//!   id, target, descriptor pointer); 0x85 is the production FWSEC, 0x45 the
//!   debug one.
//! - **Descriptor** (FalconUCodeDescV2/V3): where the ucode's IMEM and DMEM
//!   parts are and where they load; V3 is followed by the RSA-3K signatures.
//! - **IMEM / DMEM**: the falcon's instruction and data memories.
//! - **Appif** (application interface table) and **DMAP** (the DMEM mapper
//!   interface, application interface id 4): where in DMEM the driver writes
//!   the command FWSEC runs (FRTS or SB) and its arguments.
//!
//! Pointers in the BIT and the ucode table are "logical": they count the
//! PCI-AT image and then the FWSEC images as if they were contiguous, so a
//! reader subtracts the PCI-AT image's length to get an offset into the
//! FWSEC images (the EFI image in between is skipped).
//!
//! Flash layout (offsets in the flash; the PROM window starts at the PCI
//! expansion ROM on every chip but GA100, see [`crate::prom`]):
//!
//! | offset | length | content |
//! | --- | --- | --- |
//! | 0x0000 | 0x10 | IFR fixed header (`NVGI`, version 3) |
//! | 0x0400 | 4 | flash status offset (0x1000) |
//! | 0x1000 | 0x1000 | flash status section (erased) |
//! | 0x2000 | 0xc | ROM directory (`RFRD`, PCI ROM offset 0x4000) |
//! | 0x4000 | 0x1000 | PCI-AT image: PCIR at +0x80, NPDE at +0xa0, BIT at +0x100 |
//! | 0x5000 | 0x400 | EFI image, display chips only: PCIR says last, NPDE does not |
//! | next | 0x400 | FWSEC image 1: falcon ucode table at +0x60 |
//! | next | varies | FWSEC image 2, last: FWSEC 0x85 at +0x100, then FWSEC 0x45 |

mod bit;
pub mod fault;
pub mod fwsec;
mod ifr;
mod image;
pub mod read;
mod ucode_table;

#[cfg(test)]
pub mod tests;

use crate::chipset::{
    Chipset,
    ARCH_TURING,
    CHIP_GA100,
    CLASS_VGA, //
};

pub use fwsec::{
    App,
    DescVersion,
    Ucode, //
};
// What the falcon model needs to check a FWSEC load.
#[cfg_attr(
    not(test),
    expect(
        unused_imports,
        reason = "for the falcon model of issue 14; only the tests use it yet"
    )
)]
pub use fwsec::{
    keyed_bytes,
    LoadTarget,
    APPIF_ID_DMEMMAPPER,
    CMD_FRTS,
    CMD_SB,
    DMAP_SIGNATURE,
    SIGNATURE_SIZE, //
};
pub use ifr::pci_rom_offset;
pub use image::CodeType;

use image::Image;

/// Flash offset of the PCI expansion ROM (what the IFR ROM directory says).
const PCI_ROM_OFFSET: usize = 0x4000;

/// Length of the PCI-AT image. Fixed, because the pointers in its BIT depend
/// on it.
const PCI_AT_LEN: usize = 0x1000;

/// Length of the EFI image (no code; kept short for the same reason as the ucode's IMEM, see
/// `fwsec.rs`).
const EFI_LEN: usize = 0x400;

/// Length of the first FWSEC image (the one with the ucode table). Fixed,
/// because the pointers in the table depend on it.
const FWSEC_TABLE_IMAGE_LEN: usize = 0x400;

/// Offset of the BIT header in the PCI-AT image.
const BIT_AT: usize = 0x100;

/// Offset of the falcon ucode table in the first FWSEC image.
const UCODE_TABLE_AT: usize = 0x60;

/// Offset of the first descriptor in the second FWSEC image; every
/// descriptor starts at a multiple of this alignment.
const DESCRIPTOR_ALIGN: usize = 0x100;

/// The falcon ucode table's target id of FWSEC, as real boards have it.
const TARGET_FWSEC: u8 = 0x07;

/// What differs between chip families in the synthetic VBIOS, decided in
/// [`Family::of`] and nowhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// The FWSEC descriptor: V2 on Turing and GA100, V3 from GA102 on.
    pub descriptor: DescVersion,
    /// Whether the board has an EFI (GOP) image: display parts only.
    pub efi: bool,
}

impl Family {
    /// The family `chip` belongs to.
    pub fn of(chip: &Chipset) -> Self {
        let descriptor = if chip.architecture() == ARCH_TURING || chip.chip_id == CHIP_GA100 {
            DescVersion::V2
        } else {
            DescVersion::V3
        };
        Family {
            descriptor,
            efi: chip.class == CLASS_VGA,
        }
    }
}

/// One image of the chain, by flash offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageSpan {
    pub offset: usize,
    pub len: usize,
    pub code_type: CodeType,
}

/// Where the parts of the synthetic VBIOS are, as flash offsets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The PCI expansion ROM (the IFR ROM directory's pointer).
    pub pci_rom: usize,
    /// The images, in chain order.
    pub images: Vec<ImageSpan>,
    /// The BIT header.
    pub bit: usize,
    /// The falcon ucode table.
    pub ucode_table: usize,
    /// The production FWSEC's descriptor (application 0x85).
    pub fwsec: usize,
    /// The debug FWSEC's descriptor (application 0x45).
    pub fwsec_debug: usize,
}

/// A synthetic VBIOS: the flash bytes and what they hold.
pub struct Vbios {
    flash: Vec<u8>,
    layout: Layout,
    family: Family,
    fwsec: Ucode,
    fwsec_debug: Ucode,
}

impl Vbios {
    /// Builds the flash image of `chip`'s board. Deterministic: the same chip
    /// always gives the same bytes.
    pub fn build(chip: &Chipset) -> Self {
        let family = Family::of(chip);
        let fwsec = Ucode::new(chip.name, App::Prod, family.descriptor);
        let fwsec_debug = Ucode::new(chip.name, App::Debug, family.descriptor);

        // The second FWSEC image: both descriptors, each followed by its
        // signatures and its ucode.
        let mut ucode_image = Image::new(CodeType::FwSec, chip);
        let prod_at = DESCRIPTOR_ALIGN;
        ucode_image.put(prod_at, &fwsec.stored());
        let debug_at = align_up(ucode_image.end(), DESCRIPTOR_ALIGN);
        ucode_image.put(debug_at, &fwsec_debug.stored());
        let ucode_image = ucode_image.finish(0, true, true);

        // The first FWSEC image: the falcon ucode table, whose pointers are
        // logical (PCI-AT image, then the FWSEC images).
        let ucode_image_logical = PCI_AT_LEN + FWSEC_TABLE_IMAGE_LEN;
        let table = ucode_table::encode(&[
            ucode_table::Entry {
                app_id: App::Debug.id(),
                target_id: TARGET_FWSEC,
                pointer: logical(ucode_image_logical + debug_at),
            },
            ucode_table::Entry {
                app_id: App::Prod.id(),
                target_id: TARGET_FWSEC,
                pointer: logical(ucode_image_logical + prod_at),
            },
            // An unused slot, as real tables have.
            ucode_table::Entry {
                app_id: 0,
                target_id: 0,
                pointer: 0,
            },
        ]);
        let mut table_image = Image::new(CodeType::FwSec, chip);
        table_image.put(UCODE_TABLE_AT, &table);
        let table_image = table_image.finish(FWSEC_TABLE_IMAGE_LEN, false, false);

        // The PCI-AT image with the BIT.
        let mut pci_at = Image::new(CodeType::PciAt, chip);
        bit::write(
            &mut pci_at,
            BIT_AT,
            &[
                bit::Token::bios_data(chip),
                bit::Token::falcon_data(logical(PCI_AT_LEN + UCODE_TABLE_AT)),
            ],
        );
        // Without an EFI image the PCI-AT image is the last one the system
        // firmware sees.
        let pci_at = pci_at.finish(PCI_AT_LEN, !family.efi, false);

        let mut flash = ifr::area(PCI_ROM_OFFSET);
        let mut images = Vec::new();
        let mut append = |flash: &mut Vec<u8>, bytes: Vec<u8>, code_type| {
            images.push(ImageSpan {
                offset: flash.len(),
                len: bytes.len(),
                code_type,
            });
            flash.extend_from_slice(&bytes);
        };
        append(&mut flash, pci_at, CodeType::PciAt);
        if family.efi {
            // As on real boards, the EFI image's PCIR says "last" (the system
            // firmware stops there) while its NPDE does not.
            let efi = Image::new(CodeType::Efi, chip).finish(EFI_LEN, true, false);
            append(&mut flash, efi, CodeType::Efi);
        }
        let table_image_at = flash.len();
        append(&mut flash, table_image, CodeType::FwSec);
        let ucode_image_at = flash.len();
        append(&mut flash, ucode_image, CodeType::FwSec);

        let layout = Layout {
            pci_rom: PCI_ROM_OFFSET,
            images,
            bit: PCI_ROM_OFFSET + BIT_AT,
            ucode_table: table_image_at + UCODE_TABLE_AT,
            fwsec: ucode_image_at + prod_at,
            fwsec_debug: ucode_image_at + debug_at,
        };
        Vbios {
            flash,
            layout,
            family,
            fwsec,
            fwsec_debug,
        }
    }

    /// The flash bytes, for the PROM.
    pub fn into_flash(self) -> Vec<u8> {
        self.flash
    }
}

/// What the falcon model will need to check a load.
#[cfg_attr(
    not(test),
    expect(
        dead_code,
        reason = "for the falcon model of issue 14; only the tests use it yet"
    )
)]
impl Vbios {
    /// The flash bytes, IFR header included.
    pub fn flash(&self) -> &[u8] {
        &self.flash
    }

    /// Where the parts are.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The chip family's choices.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The production FWSEC (application 0x85), which the driver loads.
    pub fn fwsec(&self) -> &Ucode {
        &self.fwsec
    }

    /// The debug FWSEC (application 0x45), listed first in the ucode table:
    /// a driver that loads it took the wrong entry.
    pub fn fwsec_debug(&self) -> &Ucode {
        &self.fwsec_debug
    }
}

/// A logical VBIOS pointer. The synthetic layout stays far below 4 GiB.
fn logical(offset: usize) -> u32 {
    to_u32(offset)
}

/// `n` rounded up to a multiple of `align` (a power of two).
fn align_up(n: usize, align: usize) -> usize {
    n.next_multiple_of(align)
}

/// A length or offset of the synthetic layout as a 16-bit field.
///
/// # Panics
///
/// On a value above 0xffff, which only a mistake in this module's layout
/// constants can produce (the tests build the VBIOS of every chip).
fn to_u16(n: usize) -> u16 {
    u16::try_from(n).expect("synthetic VBIOS layout: a 16-bit field overflows")
}

/// A length or offset of the synthetic layout as a 32-bit field.
///
/// # Panics
///
/// Like [`to_u16`], on a value the layout constants cannot produce.
fn to_u32(n: usize) -> u32 {
    u32::try_from(n).expect("synthetic VBIOS layout: a 32-bit field overflows")
}

/// Writes `bytes` at `at` in `buf`, growing it with zeros as needed.
fn put(buf: &mut Vec<u8>, at: usize, bytes: &[u8]) {
    let end = at + bytes.len();
    if buf.len() < end {
        buf.resize(end, 0);
    }
    buf[at..end].copy_from_slice(bytes);
}

/// Writes a little-endian u16 at `at`.
fn put_u16(buf: &mut Vec<u8>, at: usize, value: u16) {
    put(buf, at, &value.to_le_bytes());
}

/// Writes a little-endian u32 at `at`.
fn put_u32(buf: &mut Vec<u8>, at: usize, value: u32) {
    put(buf, at, &value.to_le_bytes());
}
