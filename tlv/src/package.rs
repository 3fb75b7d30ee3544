// SPDX-License-Identifier: GPL-2.0

//! The files of NVIDIA's GSP firmware package, as linux-firmware ships them
//! (`nvidia/<chip>/gsp/<name>-<version>.bin`), parsed defensively: every offset and size a
//! file gives is checked against the file (or the region it points into) before it is used,
//! and a bad file is an [`Invalid`], never a panic.
//!
//! Glossary:
//! - falcon: NVIDIA's microcontroller core; SEC2 and GSP are falcons (the GSP also has a
//!   RISC-V core).
//! - IMEM/DMEM: a falcon's instruction and data memories.
//! - HS: heavy-secure, falcon code the boot ROM runs only with a valid signature.
//! - Booter: the HS ucode that loads (`booter_load`) or unloads (`booter_unload`) GSP-RM on
//!   Turing, Ampere and Ada.
//! - FWSEC: the HS ucode of the VBIOS; on Turing and GA100 the generic bootloader
//!   (`gen_bootloader`) loads it.
//! - FSP/FMC: on Hopper and Blackwell the FSP boots the GSP with the FMC (`fmc`) image.
//! - GSP-RM: the firmware the GSP runs (`gsp`, an ELF file whose `.fwimage` is the image).

use std::{
    fmt,
    ops::Range, //
};

pub mod bin_hdr;
pub mod booter;
pub mod crc32;
pub mod elf;
pub mod fmc;
pub mod gen_bootloader;
pub mod gsp_image;
pub mod riscv;

/// Why a package file was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalid {
    /// The file ends before the structure `what` that should start at `at`.
    Truncated { what: String, at: u64, len: u64 },
    /// The file does not start with the magic number of `what` (with its article).
    BadMagic { what: &'static str, found: String },
    /// `size` bytes at `offset` do not lie inside the `within` (`limit` bytes).
    OutOfRange {
        what: String,
        offset: u64,
        size: u64,
        within: &'static str,
        limit: u64,
    },
    /// A field has a value nova-core (or this converter) cannot take, for the reason `why`.
    BadValue {
        what: String,
        value: u64,
        why: &'static str,
    },
    /// A section the file must have is missing.
    MissingSection(String),
    /// A section appears twice.
    DuplicateSection(String),
    /// `.fwversion` names another version than the one converted.
    VersionMismatch { found: String, expected: String },
    /// A section's CRC32 (in its header's `sh_info`) does not match its bytes.
    CrcMismatch {
        section: String,
        stored: u32,
        computed: u32,
    },
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invalid::Truncated { what, at, len } => write!(
                f,
                "file ends ({len:#x} bytes) before the end of the {what} at {at:#x}"
            ),
            Invalid::BadMagic { what, found } => {
                write!(f, "not {what}: magic is {found}")
            }
            Invalid::OutOfRange {
                what,
                offset,
                size,
                within,
                limit,
            } => write!(
                f,
                "{what} ({size:#x} bytes at {offset:#x}) lies outside the {within} \
                 ({limit:#x} bytes)"
            ),
            Invalid::BadValue { what, value, why } => write!(f, "{what} is {value:#x}: {why}"),
            Invalid::MissingSection(name) => write!(f, "no {name} section"),
            Invalid::DuplicateSection(name) => write!(f, "two {name} sections"),
            Invalid::VersionMismatch { found, expected } => {
                write!(f, ".fwversion says {found}, not {expected}")
            }
            Invalid::CrcMismatch {
                section,
                stored,
                computed,
            } => write!(
                f,
                "section {section}: CRC32 is {computed:#010x}, its header says {stored:#010x}"
            ),
        }
    }
}

impl std::error::Error for Invalid {}

/// `n` as a `u64` (saturating on a platform whose `usize` were wider).
pub(crate) fn len64(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The range of `size` bytes at `offset` inside something `limit` bytes long, which a message
/// calls `within`; the bytes are called `what`.
pub(crate) fn region(
    offset: u64,
    size: u64,
    limit: usize,
    what: &str,
    within: &'static str,
) -> Result<Range<usize>, Invalid> {
    let out = || Invalid::OutOfRange {
        what: what.to_string(),
        offset,
        size,
        within,
        limit: len64(limit),
    };
    let end = offset.checked_add(size).ok_or_else(out)?;
    if end > len64(limit) {
        return Err(out());
    }
    let start = usize::try_from(offset).map_err(|_| out())?;
    let end = usize::try_from(end).map_err(|_| out())?;
    Ok(start..end)
}

/// `region` inside the sub-range `within` of a file: the result is a range of the file.
pub(crate) fn sub_region(
    within: &Range<usize>,
    offset: u64,
    size: u64,
    what: &str,
    name: &'static str,
) -> Result<Range<usize>, Invalid> {
    let r = region(offset, size, within.len(), what, name)?;
    Ok(within.start + r.start..within.start + r.end)
}

/// `N` little-endian 32-bit words of `file` at `at`, the structure a message calls `what`.
pub(crate) fn words<const N: usize>(file: &[u8], at: u64, what: &str) -> Result<[u32; N], Invalid> {
    let bytes = usize::try_from(at)
        .ok()
        .and_then(|start| Some(start..start.checked_add(N.checked_mul(4)?)?))
        .and_then(|r| file.get(r))
        .ok_or_else(|| Invalid::Truncated {
            what: what.to_string(),
            at,
            len: len64(file.len()),
        })?;
    let mut out = [0u32; N];
    for (word, chunk) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        // `chunks_exact(4)`: every chunk has four bytes.
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    Ok(out)
}

/// One little-endian 32-bit word of `file` at `at`.
pub(crate) fn word(file: &[u8], at: u64, what: &str) -> Result<u32, Invalid> {
    words::<1>(file, at, what).map(|[w]| w)
}
