// SPDX-License-Identifier: GPL-2.0

//! The BIOS Information Table (BIT) of the PCI-AT image, and its falcon data token.
//!
//! The BIT header is found by its signature (`0xB8FF` then `BIT\0`) in the PCI-AT image; a list
//! of tokens follows it, each with an id and the offset and size of its data. The falcon data
//! token (`p`, 0x70) holds a 4-byte pointer to the PMU lookup table, which lies in the FWSEC
//! images (see [`super::fwsec::FwsecSection`] for how the pointer is read).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use super::{
    range,
    read_at,
    rom::Image,
    u32_at,
    VbiosError, //
};

/// What the BIT header starts with: its id 0xB8FF and its signature `BIT\0`.
const BIT_PATTERN: [u8; 6] = [0xff, 0xb8, b'B', b'I', b'T', 0];
/// Id of the falcon data token, `p`.
pub(crate) const TOKEN_FALCON_DATA: u8 = 0x70;

/// The BIT header.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct BitHeader {
    /// 0xB8FF.
    id: u16,
    /// `BIT\0`.
    signature: [u8; 4],
    /// Binary-coded decimal version: 0x0100 is 1.00.
    bcd_version: u16,
    /// Size of this header, which the tokens follow.
    header_size: u8,
    /// Size of one token.
    token_size: u8,
    /// How many tokens follow.
    token_entries: u8,
    checksum: u8,
}

/// A BIT token.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct BitToken {
    id: u8,
    /// Version of the token's data.
    data_version: u8,
    /// Size of the token's data.
    data_size: u16,
    /// Offset of the token's data, relative to the PCI-AT image.
    data_offset: u16,
}

/// The falcon data token, as validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FalconData {
    /// Where the token's data (the pointer) is in the ROM, inside the PCI-AT image.
    pub(crate) offset: usize,
    /// The version of the token's data (2 in the ROMs seen; nouveau requires 2, upstream
    /// nova-core does not look).
    pub(crate) version: u8,
    /// The pointer to the PMU lookup table, as the ROM gives it (relative to the PCI-AT image
    /// followed by the FWSEC images; see [`super::fwsec::FwsecSection`]).
    pub(crate) pointer: u32,
}

/// The BIT table, as validated: its header and token list inside the PCI-AT image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bit {
    /// Where the BIT header starts in the ROM.
    pub(crate) offset: usize,
    /// Its BCD version.
    pub(crate) version: u16,
    /// How many tokens it lists.
    pub(crate) token_count: u8,
    /// The falcon data token.
    pub(crate) falcon_data: FalconData,
}

/// Finds the BIT in the PCI-AT image and reads its falcon data token.
pub(super) fn read_bit(rom: &[u8], pci_at: &Image) -> Result<Bit, VbiosError> {
    let image = range(rom, pci_at.offset, pci_at.len).ok_or(VbiosError::NoBit {
        image_at: pci_at.offset,
    })?;
    let bit_at = image
        .windows(BIT_PATTERN.len())
        .position(|w| w == BIT_PATTERN)
        .ok_or(VbiosError::NoBit {
            image_at: pci_at.offset,
        })?;
    let at = pci_at.offset + bit_at;
    let header: BitHeader = read_at(image, bit_at).ok_or(VbiosError::BitTruncated { at })?;
    let header_size = usize::from(header.header_size);
    let token_size = usize::from(header.token_size);
    if header_size < core::mem::size_of::<BitHeader>()
        || token_size < core::mem::size_of::<BitToken>()
    {
        return Err(VbiosError::BitSizes {
            at,
            header_size: header.header_size,
            token_size: header.token_size,
        });
    }
    // The whole token list lies in the image (upstream checks each token as it reads it).
    let tokens_at = bit_at + header_size;
    let tokens = range(
        image,
        tokens_at,
        token_size * usize::from(header.token_entries),
    )
    .ok_or(VbiosError::BitTokensOutside {
        at,
        count: header.token_entries,
        token_size: header.token_size,
    })?;
    let (token_at, token) = tokens
        .chunks_exact(token_size)
        .enumerate()
        .filter_map(|(i, t)| Some((tokens_at + i * token_size, read_at::<BitToken>(t, 0)?)))
        .find(|(_, t)| t.id == TOKEN_FALCON_DATA)
        .ok_or(VbiosError::NoFalconToken { at })?;
    let bad_data = VbiosError::FalconTokenData {
        at: pci_at.offset + token_at,
        offset: token.data_offset,
        size: token.data_size,
    };
    // The token's data offset is relative to the PCI-AT image, as upstream reads it.
    let data_at = usize::from(token.data_offset);
    if token.data_size < 4 {
        return Err(bad_data);
    }
    range(image, data_at, usize::from(token.data_size)).ok_or(bad_data)?;
    let pointer = u32_at(image, data_at).ok_or(bad_data)?;
    Ok(Bit {
        offset: at,
        version: header.bcd_version,
        token_count: header.token_entries,
        falcon_data: FalconData {
            offset: pci_at.offset + data_at,
            version: token.data_version,
            pointer,
        },
    })
}
