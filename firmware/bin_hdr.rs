// SPDX-License-Identifier: GPL-2.0

//! NVIDIA's binary firmware header, at the start of `booter_load`, `booter_unload` and
//! `bootloader` files.
//!
//! [`BinFile`] is the trusted result of validating it: the magic is right and the header and data
//! ranges it describes lie inside the file.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use zerocopy::FromBytes;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

use super::error::FwError;

/// Magic number of the header (NVIDIA's PCI vendor id).
const BIN_MAGIC: u32 = 0x10de;

/// The header as stored in the file (`nvfw_bin_hdr` in NVIDIA's and nouveau's sources).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct BinHdr {
    /// Always [`BIN_MAGIC`].
    bin_magic: u32,
    /// Header version.
    bin_ver: u32,
    /// Size of the whole binary, padding included (may exceed the file).
    bin_size: u32,
    /// Offset of the firmware-specific header.
    header_offset: u32,
    /// Offset of the firmware data.
    data_offset: u32,
    /// Size of the firmware data.
    data_size: u32,
}

/// Size of the smallest firmware-specific header (the bootloader's).
const MIN_SUB_HEADER: usize = 16;

/// A validated binary firmware file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BinFile {
    /// Offset of the firmware-specific header.
    pub(crate) header_offset: usize,
    /// Offset of the firmware data.
    pub(crate) data_offset: usize,
    /// Size of the firmware data.
    pub(crate) data_size: usize,
}

impl Validator<&Untrusted<[u8]>> for BinFile {
    type Err = FwError;

    fn validate(file: &[u8]) -> Result<BinFile, FwError> {
        let (hdr, _) =
            BinHdr::read_from_prefix(file).map_err(|_| FwError::Truncated("binary header"))?;
        if hdr.bin_magic != BIN_MAGIC {
            return Err(FwError::BadMagic);
        }
        let len = file.len();
        let header_offset =
            usize::try_from(hdr.header_offset).map_err(|_| FwError::OutOfFile("header"))?;
        let data_offset =
            usize::try_from(hdr.data_offset).map_err(|_| FwError::OutOfFile("data"))?;
        let data_size = usize::try_from(hdr.data_size).map_err(|_| FwError::OutOfFile("data"))?;

        if header_offset < core::mem::size_of::<BinHdr>() {
            return Err(FwError::Malformed("sub-header overlaps the binary header"));
        }
        let header_end = header_offset
            .checked_add(MIN_SUB_HEADER)
            .ok_or(FwError::OutOfFile("header"))?;
        if header_end > len {
            return Err(FwError::OutOfFile("header"));
        }
        let data_end = data_offset
            .checked_add(data_size)
            .ok_or(FwError::OutOfFile("data"))?;
        if data_size == 0 || data_end > len {
            return Err(FwError::OutOfFile("data"));
        }
        if data_offset < header_end {
            return Err(FwError::Malformed("data overlaps the headers"));
        }
        Ok(BinFile {
            header_offset,
            data_offset,
            data_size,
        })
    }
}
