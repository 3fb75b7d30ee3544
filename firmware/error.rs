// SPDX-License-Identifier: GPL-2.0

//! Why a firmware file was rejected: [`FwError`], and the booter file's own reasons,
//! [`BooterError`], which it carries. Every validator of the firmware files returns them.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

/// Why a firmware file was rejected.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) enum FwError {
    /// The file is empty.
    Empty,
    /// The file ends inside the named structure.
    Truncated(&'static str),
    /// The file does not start with the expected magic number.
    BadMagic,
    /// The named structure points outside the file.
    OutOfFile(&'static str),
    /// The file is inconsistent in the way described.
    Malformed(&'static str),
    /// A required section is missing.
    MissingSection(&'static str),
    /// `.fwversion` names another version than the file name.
    VersionMismatch,
    /// A booter file's HS headers are wrong in the way described.
    Booter(BooterError),
    /// A section is not of the size its consumer takes.
    SectionSize {
        name: &'static str,
        got: usize,
        want: usize,
    },
}

impl fmt::Display for FwError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FwError::Empty => f.write_str("file is empty"),
            FwError::Truncated(what) => write!(f, "file ends inside the {what}"),
            FwError::BadMagic => f.write_str("bad magic number"),
            FwError::OutOfFile(what) => write!(f, "{what} lies outside the file"),
            FwError::Malformed(what) => f.write_str(what),
            FwError::MissingSection(name) => write!(f, "no {name} section"),
            FwError::VersionMismatch => f.write_str(".fwversion does not match the file name"),
            FwError::Booter(e) => fmt::Display::fmt(e, f),
            FwError::SectionSize { name, got, want } => {
                write!(f, "section {name} has {got} bytes, not {want}")
            }
        }
    }
}

/// Why a booter file was rejected (beyond its binary header, which
/// [`BinFile`](super::bin_hdr::BinFile) checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BooterError {
    /// A structure the headers point at lies, at least partly, outside the file.
    OutOfFile {
        what: &'static str,
        offset: u64,
        len: u64,
        file: usize,
    },
    /// A region the HS header declares is smaller than what is read in it.
    TooSmall {
        what: &'static str,
        size: u32,
        needed: u64,
    },
    /// The signature count is 0: a booter is always signed.
    NoSignatures,
    /// The production signatures' size is not a non-zero multiple of their count.
    SignatureSize { size: u32, count: u32 },
    /// A part of the ucode lies, at least partly, outside the image.
    OutOfImage {
        what: &'static str,
        offset: u32,
        size: u32,
        image: usize,
    },
    /// A signature written at the patch location would not lie inside the OS data.
    PatchLocation {
        patch_loc: u32,
        signature_size: usize,
        data_offset: u32,
        data_size: u32,
    },
    /// The load header lists no application: the secure code is application 0's.
    NoApps,
    /// The engine id mask does not fit the boot ROM's 16-bit register.
    EngineIdMask(u32),
    /// The ucode id is not 1 to 16 (the fuse registers' indices).
    UcodeId(u32),
    /// A part the falcon's DMA moves, or its IMEM destination, does not start on a 256-byte
    /// block.
    Unaligned { part: &'static str, offset: u32 },
    /// A part would go past the falcon's 64 KiB of IMEM or DMEM.
    PastMemory {
        part: &'static str,
        dst: u32,
        len: u32,
    },
    /// Turing and GA100: the OS code and application 0's code share IMEM blocks.
    ImemOverlap { os_code: Part, app0: Part },
    /// The fuse version read selects none of the signatures.
    NoSignatureForFuse {
        fuse: Option<u32>,
        fuse_version: u32,
        count: usize,
    },
}

impl fmt::Display for BooterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BooterError::OutOfFile {
                what,
                offset,
                len,
                file,
            } => write!(
                f,
                "booter {what} at {offset:#x} ({len:#x} bytes) lies outside the file ({file:#x} bytes)"
            ),
            BooterError::TooSmall { what, size, needed } => write!(
                f,
                "booter {what} of {size:#x} bytes, {needed:#x} needed"
            ),
            BooterError::NoSignatures => f.write_str("booter signature count is 0"),
            BooterError::SignatureSize { size, count } => write!(
                f,
                "booter signatures of {size:#x} bytes do not make {count} signatures of one non-zero size"
            ),
            BooterError::OutOfImage {
                what,
                offset,
                size,
                image,
            } => write!(
                f,
                "booter {what} {offset:#x}+{size:#x} lies outside the image ({image:#x} bytes)"
            ),
            BooterError::PatchLocation {
                patch_loc,
                signature_size,
                data_offset,
                data_size,
            } => write!(
                f,
                "booter signature patch at {patch_loc:#x} ({signature_size:#x} bytes) is not inside the OS data {data_offset:#x}+{data_size:#x}"
            ),
            BooterError::NoApps => f.write_str("booter load header lists no application"),
            BooterError::EngineIdMask(mask) => {
                write!(f, "booter engine id mask {mask:#x} is wider than 16 bits")
            }
            BooterError::UcodeId(id) => write!(f, "booter ucode id {id} is not 1 to 16"),
            BooterError::Unaligned { part, offset } => write!(
                f,
                "booter {part} at {offset:#x} does not start on a 256-byte block"
            ),
            BooterError::PastMemory { part, dst, len } => write!(
                f,
                "booter {part} of {len:#x} bytes at {dst:#x} goes past the falcon's 64 KiB"
            ),
            BooterError::ImemOverlap { os_code, app0 } => write!(
                f,
                "booter OS code {:#x}+{:#x} and application 0 code {:#x}+{:#x} overlap in IMEM",
                os_code.offset, os_code.size, app0.offset, app0.size
            ),
            BooterError::NoSignatureForFuse {
                fuse,
                fuse_version,
                count,
            } => {
                match fuse {
                    Some(v) => write!(f, "fuse version {v}")?,
                    None => f.write_str("no fuse")?,
                }
                write!(
                    f,
                    " selects no booter signature (ucode fuse version {fuse_version}, {count} signatures)"
                )
            }
        }
    }
}

/// A part of the image: its offset and size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    pub(crate) offset: u32,
    pub(crate) size: u32,
}
