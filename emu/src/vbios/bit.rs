// SPDX-License-Identifier: GPL-2.0

//! The BIOS Information Table (BIT) of the PCI-AT image: a 12-byte header
//! (`0xB8FF`, `"BIT\0"`, BCD version 1.00, header and token sizes, token
//! count, checksum) followed by 6-byte tokens (id, data version, data size,
//! data offset), as NVIDIA's public BIT document describes it. Token data
//! offsets are 16-bit offsets from the start of the PCI-AT image.
//!
//! Two tokens are written: `'i'` (BIOS data: the BIOS version nouveau logs)
//! and `'p'` (0x70, falcon data: the logical pointer of the falcon ucode
//! table, data version 2, as both drivers require).

use crate::chipset::Chipset;

use super::{
    image::Image,
    to_u16, //
};

/// BIT header identifier, stored as the bytes 0xFF 0xB8.
const ID: u16 = 0xb8ff;

/// BCD version 1.00.
const BCD_VERSION: u16 = 0x0100;

/// Size of the BIT header.
const HEADER_SIZE: u8 = 12;

/// Size of a BIT token.
const TOKEN_SIZE: u8 = 6;

/// Token id of the BIOS data.
pub const TOKEN_BIOS_DATA: u8 = b'i';

/// Token id of the falcon data.
pub const TOKEN_FALCON_DATA: u8 = 0x70;

/// The emulator's BIOS version major number ("ee" as in emulated).
const BIOS_VERSION_MAJOR: u8 = 0xee;

/// One BIT token and its data.
pub struct Token {
    id: u8,
    version: u8,
    data: Vec<u8>,
}

impl Token {
    /// The BIOS data token: BIOS version ee.<chip>.00.00 (little-endian
    /// dword: micro, minor, chip, major) and OEM version 1.
    pub fn bios_data(chip: &Chipset) -> Self {
        let [chip_low, ..] = chip.chip_id.to_le_bytes();
        Token {
            id: TOKEN_BIOS_DATA,
            version: 2,
            data: vec![0x00, 0x00, chip_low, BIOS_VERSION_MAJOR, 0x01],
        }
    }

    /// The falcon data token: the falcon ucode table's logical pointer.
    pub fn falcon_data(table: u32) -> Self {
        Token {
            id: TOKEN_FALCON_DATA,
            version: 2,
            data: table.to_le_bytes().to_vec(),
        }
    }
}

/// Writes the BIT header at `at` in `image`, its tokens after it and the
/// tokens' data after those.
pub fn write(image: &mut Image, at: usize, tokens: &[Token]) {
    let count = u8::try_from(tokens.len()).unwrap_or(u8::MAX);
    let mut header = Vec::with_capacity(usize::from(HEADER_SIZE));
    header.extend_from_slice(&ID.to_le_bytes());
    header.extend_from_slice(b"BIT\0");
    header.extend_from_slice(&BCD_VERSION.to_le_bytes());
    header.extend_from_slice(&[HEADER_SIZE, TOKEN_SIZE, count]);
    // The checksum makes the header's bytes add up to 0.
    let sum = header.iter().fold(0u8, |sum, &b| sum.wrapping_add(b));
    header.push(0u8.wrapping_sub(sum));
    image.put(at, &header);

    let token_size = usize::from(TOKEN_SIZE);
    let mut entry_at = at + usize::from(HEADER_SIZE);
    let mut data_at = entry_at + token_size * tokens.len();
    for token in tokens {
        let mut entry = vec![token.id, token.version];
        entry.extend_from_slice(&to_u16(token.data.len()).to_le_bytes());
        entry.extend_from_slice(&to_u16(data_at).to_le_bytes());
        image.put(entry_at, &entry);
        image.put(data_at, &token.data);
        entry_at += token_size;
        data_at += token.data.len();
    }
}
