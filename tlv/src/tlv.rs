// SPDX-License-Identifier: GPL-2.0

//! The TLV firmware file format of Linux's nova-core (the kernel's
//! `Documentation/gpu/nova/core/tlv.rst`).
//!
//! A file is the magic `NVFW` followed by blocks: a four-character tag (upper-case letters and
//! digits), the value's length as a little-endian 32-bit integer, and the value, padded with
//! zeros to a multiple of four bytes (the length field does not count the padding). A tag
//! appears at most once, every file has a `VERS` string, and a file carries its image either
//! inline (`BLOB`) or in a companion file (`FILE` with its `SIZE`).
//!
//! [`Writer`] builds a file and refuses what the format forbids; [`Tlv`] reads one back.

use std::fmt;

pub mod reader;
pub mod writer;

pub use reader::Tlv;
pub use writer::Writer;

/// The first four bytes of every TLV file.
pub const MAGIC: &[u8; 4] = b"NVFW";

/// Size of a block's header: the tag and the length.
pub const BLOCK_HEADER: usize = 8;

/// Whether `tag` is a valid tag: four characters, each an upper-case ASCII letter or a digit
/// (`A0CO` has a digit).
pub fn valid_tag(tag: &[u8; 4]) -> bool {
    tag.iter()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Whether `value` is a valid string value: printable ASCII, no terminating NUL, not empty.
pub fn valid_string(value: &[u8]) -> bool {
    !value.is_empty() && value.iter().all(|c| (0x20..0x7f).contains(c))
}

/// A tag shown in a message: its characters where printable, escapes otherwise.
pub struct ShowTag<'a>(pub &'a [u8; 4]);

impl fmt::Display for ShowTag<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &c in self.0 {
            if (0x20..0x7f).contains(&c) {
                write!(f, "{}", char::from(c))?;
            } else {
                write!(f, "\\x{c:02x}")?;
            }
        }
        Ok(())
    }
}

/// Why a TLV file could not be written or read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TlvError {
    /// A tag is not four upper-case letters or digits.
    BadTag([u8; 4]),
    /// A tag appears twice.
    DuplicateTag([u8; 4]),
    /// A value is empty (nova-core refuses empty values).
    EmptyValue([u8; 4]),
    /// A value is longer than a 32-bit length can say.
    TooLong([u8; 4], usize),
    /// A string value has a byte that is not printable ASCII.
    NotPrintable([u8; 4]),
    /// The file has no `VERS` tag.
    NoVersion,
    /// The file has neither a `BLOB` nor a `FILE` tag.
    NoImage,
    /// The file has both a `BLOB` and a `FILE` tag.
    BlobAndFile,
    /// `FILE` and `SIZE` are not both present.
    FileWithoutSize,
    /// `FILE` names a path, not a file of the TLV's own folder.
    PathInFile,
    /// The file does not start with [`MAGIC`].
    BadMagic,
    /// The file ends inside the block starting at this offset.
    Truncated(usize),
    /// The padding after the value of a tag is not zero.
    BadPadding([u8; 4]),
}

impl fmt::Display for TlvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlvError::BadTag(t) => write!(
                f,
                "tag '{}' is not four upper-case letters or digits",
                ShowTag(t)
            ),
            TlvError::DuplicateTag(t) => write!(f, "tag {} appears twice", ShowTag(t)),
            TlvError::EmptyValue(t) => write!(f, "tag {} has an empty value", ShowTag(t)),
            TlvError::TooLong(t, len) => write!(
                f,
                "tag {}: value of {len} bytes is too long for a 32-bit length",
                ShowTag(t)
            ),
            TlvError::NotPrintable(t) => {
                write!(f, "tag {}: string value is not printable ASCII", ShowTag(t))
            }
            TlvError::NoVersion => f.write_str("no VERS tag"),
            TlvError::NoImage => f.write_str("neither a BLOB nor a FILE tag"),
            TlvError::BlobAndFile => f.write_str("both a BLOB and a FILE tag"),
            TlvError::FileWithoutSize => f.write_str("FILE and SIZE must come together"),
            TlvError::PathInFile => f.write_str("FILE names a path, not a plain file name"),
            TlvError::BadMagic => f.write_str("does not start with NVFW"),
            TlvError::Truncated(at) => write!(f, "file ends inside the block at {at:#x}"),
            TlvError::BadPadding(t) => {
                write!(f, "tag {}: padding bytes are not zero", ShowTag(t))
            }
        }
    }
}

impl std::error::Error for TlvError {}
