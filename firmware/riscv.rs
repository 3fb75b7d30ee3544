// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's RISC-V bootloader (`bootloader-<version>.bin`): NVIDIA's binary header, then its
//! descriptor (`RM_RISCV_UCODE_DESC`), whose monitor code, monitor data and manifest offsets
//! and application version the WPR meta hands the booter, with the ucode (the file's data)
//! itself.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use zerocopy::FromBytes;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

use super::{
    bin_hdr::BinFile,
    error::FwError, //
};

/// The descriptor's first members, as stored (`RM_RISCV_UCODE_DESC`, up to the monitor code's
/// size; later members are not read).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct Desc {
    version: u32,
    bootloader_offset: u32,
    bootloader_size: u32,
    bootloader_param_offset: u32,
    bootloader_param_size: u32,
    riscv_elf_offset: u32,
    riscv_elf_size: u32,
    app_version: u32,
    manifest_offset: u32,
    manifest_size: u32,
    monitor_data_offset: u32,
    monitor_data_size: u32,
    monitor_code_offset: u32,
    monitor_code_size: u32,
}

/// The validated bootloader: its ucode and the offsets in it that the WPR meta names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RiscvBootloader<'a> {
    /// The ucode (the file's data), non-empty.
    pub(crate) ucode: &'a [u8],
    /// Where the monitor's code, its data and the manifest start in the ucode.
    pub(crate) code_offset: u32,
    pub(crate) data_offset: u32,
    pub(crate) manifest_offset: u32,
    /// The application version GSP-RM's OS register gets.
    pub(crate) app_version: u32,
}

/// Whether `offset + size` lies within `len`.
fn inside(offset: u32, size: u32, len: usize) -> bool {
    u64::from(offset) + u64::from(size) <= len as u64
}

impl<'a> Validator<&'a Untrusted<[u8]>> for RiscvBootloader<'a> {
    type Err = FwError;

    fn validate(file: &'a [u8]) -> Result<RiscvBootloader<'a>, FwError> {
        let bin = BinFile::validate(file)?;
        let ucode = bin
            .data_offset
            .checked_add(bin.data_size)
            .and_then(|end| file.get(bin.data_offset..end))
            .filter(|u| !u.is_empty())
            .ok_or(FwError::OutOfFile("bootloader ucode"))?;
        let desc = file
            .get(bin.header_offset..)
            .and_then(|rest| Desc::read_from_prefix(rest).ok())
            .map(|(d, _)| d)
            .ok_or(FwError::Truncated("RISC-V descriptor"))?;
        let parts = [
            (desc.monitor_code_offset, desc.monitor_code_size),
            (desc.monitor_data_offset, desc.monitor_data_size),
            (desc.manifest_offset, desc.manifest_size),
        ];
        if parts.iter().any(|&(o, s)| !inside(o, s, ucode.len())) {
            return Err(FwError::Malformed(
                "bootloader: monitor code, data or manifest outside its ucode",
            ));
        }
        Ok(RiscvBootloader {
            ucode,
            code_offset: desc.monitor_code_offset,
            data_offset: desc.monitor_data_offset,
            manifest_offset: desc.manifest_offset,
            app_version: desc.app_version,
        })
    }
}
