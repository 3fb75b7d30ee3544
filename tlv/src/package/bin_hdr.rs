// SPDX-License-Identifier: GPL-2.0

//! NVIDIA's binary firmware header (`nvfw_bin_hdr` in nouveau), at the start of the
//! `booter_load`, `booter_unload`, `bootloader` and `gen_bootloader` files: where the
//! firmware-specific sub-header and the firmware data (the ucode image) lie.

use std::ops::Range;

use super::{
    len64,
    region,
    words,
    Invalid, //
};

/// Magic number of the header: NVIDIA's PCI vendor id.
pub const BIN_MAGIC: u32 = 0x10de;

/// Size of the header: six 32-bit words (magic, version, size, sub-header offset, data offset,
/// data size).
pub const BIN_HDR_SIZE: usize = 24;

/// A parsed binary header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinFile {
    /// Offset of the firmware-specific sub-header, after the binary header and inside the file.
    pub header_offset: u64,
    /// The firmware data (the ucode image), inside the file and not empty.
    pub data: Range<usize>,
}

impl BinFile {
    /// Parses the binary header at the start of `file`.
    pub fn parse(file: &[u8]) -> Result<BinFile, Invalid> {
        let [magic, _version, _bin_size, header_offset, data_offset, data_size] =
            words::<6>(file, 0, "binary header")?;
        if magic != BIN_MAGIC {
            return Err(Invalid::BadMagic {
                what: "an NVIDIA binary firmware file (0x10de)",
                found: format!("{magic:#x}"),
            });
        }
        let header_offset = u64::from(header_offset);
        if header_offset < len64(BIN_HDR_SIZE) {
            return Err(Invalid::BadValue {
                what: "sub-header offset".into(),
                value: header_offset,
                why: "overlaps the binary header",
            });
        }
        if header_offset >= len64(file.len()) {
            return Err(Invalid::OutOfRange {
                what: "sub-header".into(),
                offset: header_offset,
                size: 0,
                within: "file",
                limit: len64(file.len()),
            });
        }
        if data_size == 0 {
            return Err(Invalid::BadValue {
                what: "data size".into(),
                value: 0,
                why: "the file has no ucode",
            });
        }
        let data = region(
            data_offset.into(),
            data_size.into(),
            file.len(),
            "data region",
            "file",
        )?;
        Ok(BinFile {
            header_offset,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        bin_file,
        put32, //
    };

    fn good() -> Vec<u8> {
        bin_file(&[1, 2, 3, 4], &[0x5a; 0x40])
    }

    #[test]
    fn parses_a_good_header() {
        let f = good();
        let b = BinFile::parse(&f).expect("parse");
        assert_eq!(b.header_offset, 24);
        assert_eq!(b.data, 40..0x68);
    }

    #[test]
    fn rejects_truncated_header() {
        assert!(matches!(
            BinFile::parse(&good()[..20]),
            Err(Invalid::Truncated { .. })
        ));
    }

    #[test]
    fn rejects_bad_magic() {
        let mut f = good();
        put32(&mut f, 0, 0x10df);
        assert!(matches!(BinFile::parse(&f), Err(Invalid::BadMagic { .. })));
    }

    #[test]
    fn rejects_sub_header_overlapping_the_header() {
        let mut f = good();
        put32(&mut f, 12, 8);
        assert!(matches!(
            BinFile::parse(&f),
            Err(Invalid::BadValue { what, .. }) if what == "sub-header offset"
        ));
    }

    #[test]
    fn rejects_sub_header_outside_the_file() {
        let mut f = good();
        put32(&mut f, 12, 0x1000);
        assert!(matches!(
            BinFile::parse(&f),
            Err(Invalid::OutOfRange { what, .. }) if what == "sub-header"
        ));
    }

    #[test]
    fn rejects_data_outside_the_file() {
        let mut f = good();
        put32(&mut f, 20, 0x41);
        assert!(matches!(
            BinFile::parse(&f),
            Err(Invalid::OutOfRange { what, .. }) if what == "data region"
        ));
        let mut f = good();
        put32(&mut f, 16, u32::MAX);
        assert!(matches!(
            BinFile::parse(&f),
            Err(Invalid::OutOfRange { what, .. }) if what == "data region"
        ));
    }

    #[test]
    fn rejects_empty_data() {
        let mut f = good();
        put32(&mut f, 20, 0);
        assert!(matches!(
            BinFile::parse(&f),
            Err(Invalid::BadValue { what, .. }) if what == "data size"
        ));
    }
}
