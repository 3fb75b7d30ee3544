// SPDX-License-Identifier: GPL-2.0

//! The falcon ucode table (upstream's PMU lookup table, OpenRM's
//! FALCON_UCODE_TABLE_HDR_V1 and FALCON_UCODE_TABLE_ENTRY_V1): a 6-byte
//! header (version 1, header size, entry size, entry count, and two bytes no
//! driver reads) and 6-byte entries (application id, target id, logical
//! pointer of the ucode's descriptor).

/// Table version.
const VERSION: u8 = 1;

/// Size of the header.
const HEADER_SIZE: u8 = 6;

/// Size of an entry.
const ENTRY_SIZE: u8 = 6;

/// The header's last two bytes, a descriptor version and size no driver
/// reads; real boards carry 1 and 0x30 there whatever their descriptors.
const LEGACY_DESC_VERSION: u8 = 1;
const LEGACY_DESC_SIZE: u8 = 0x30;

/// One entry.
pub struct Entry {
    pub app_id: u8,
    pub target_id: u8,
    /// Logical pointer of the descriptor.
    pub pointer: u32,
}

/// The table's bytes.
pub fn encode(entries: &[Entry]) -> Vec<u8> {
    let count = u8::try_from(entries.len()).unwrap_or(u8::MAX);
    let mut table = vec![
        VERSION,
        HEADER_SIZE,
        ENTRY_SIZE,
        count,
        LEGACY_DESC_VERSION,
        LEGACY_DESC_SIZE,
    ];
    for entry in entries {
        table.extend_from_slice(&[entry.app_id, entry.target_id]);
        table.extend_from_slice(&entry.pointer.to_le_bytes());
    }
    table
}
