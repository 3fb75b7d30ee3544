// SPDX-License-Identifier: GPL-2.0

//! What a falcon load is made of, whoever provides the image (FWSEC from the VBIOS, the booter
//! from its file): the block falcon memory moves in, the parts of an image and where each goes,
//! and the boot ROM's parameters for a signed image.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

/// Falcon memory moves in blocks of 256 bytes (DMA transfers, IMEM tags).
pub(crate) const BLOCK: usize = 256;

/// One part of the image and where it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Offset in the image.
    pub(crate) src: u32,
    /// Offset in the falcon memory.
    pub(crate) dst: u32,
    /// Bytes.
    pub(crate) len: u32,
}

/// The boot ROM's parameters for a v3 image (GA102 and later).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BromParams {
    /// DMEM offset of the signature.
    pub(crate) pkc_data_offset: u32,
    pub(crate) engine_id_mask: u16,
    pub(crate) ucode_id: u8,
}
