// SPDX-License-Identifier: GPL-2.0

//! The generic falcon bootloader that loads FWSEC on Turing and GA100
//! (`gen_bootloader-<version>.bin`): a binary header whose sub-header is the bootloader
//! descriptor (`nvfw_bl_desc` in nouveau: start tag, DMEM descriptor offset, code offset and
//! size, data offset and size, into the data region).

use std::ops::Range;

use super::{
    bin_hdr::BinFile,
    sub_region,
    words,
    Invalid, //
};

/// IMEM below which nova-core puts the bootloader: its code, rounded up to whole 256-byte
/// blocks, must fit under it.
const IMEM_CEILING: u32 = 0x1_0000;

/// Size of a falcon IMEM block.
const IMEM_BLOCK: u32 = 0x100;

/// A parsed generic bootloader: the fields nova-core's generic bootloader TLV carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenBootloader {
    /// The ucode image; its code starts at its first byte.
    pub data: Range<usize>,
    /// The IMEM tag of the code's first block (the falcon starts at `start_tag << 8`).
    pub start_tag: u32,
    pub code_size: u32,
}

impl GenBootloader {
    /// Parses a generic bootloader file.
    pub fn parse(file: &[u8]) -> Result<GenBootloader, Invalid> {
        let bin = BinFile::parse(file)?;
        let [start_tag, dmem_load_off, code_off, code_size, data_off, data_size] =
            words::<6>(file, bin.header_offset, "bootloader descriptor")?;
        // nova-core takes the code as the first `CDSZ` bytes of `BLOB`.
        if code_off != 0 {
            return Err(Invalid::BadValue {
                what: "bootloader code offset".into(),
                value: code_off.into(),
                why: "nova-core takes the code from the start of the image",
            });
        }
        // nova-core writes the descriptor the bootloader reads at DMEM 0.
        if dmem_load_off != 0 {
            return Err(Invalid::BadValue {
                what: "bootloader DMEM descriptor offset".into(),
                value: dmem_load_off.into(),
                why: "nova-core puts the descriptor at DMEM 0",
            });
        }
        if code_size == 0 {
            return Err(Invalid::BadValue {
                what: "bootloader code size".into(),
                value: 0,
                why: "the bootloader has no code",
            });
        }
        sub_region(
            &bin.data,
            code_off.into(),
            code_size.into(),
            "bootloader code",
            "data region",
        )?;
        sub_region(
            &bin.data,
            data_off.into(),
            data_size.into(),
            "bootloader data",
            "data region",
        )?;
        if code_size
            .checked_next_multiple_of(IMEM_BLOCK)
            .is_none_or(|size| size > IMEM_CEILING)
        {
            return Err(Invalid::BadValue {
                what: "bootloader code size".into(),
                value: code_size.into(),
                why: "does not fit under the first 64 KiB of IMEM",
            });
        }
        if start_tag > u32::from(u16::MAX) {
            return Err(Invalid::BadValue {
                what: "bootloader start tag".into(),
                value: start_tag.into(),
                why: "wider than 16 bits",
            });
        }
        Ok(GenBootloader {
            data: bin.data,
            start_tag,
            code_size,
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

    /// Start tag 0xfd, code 0x200 bytes at 0, data 0x100 bytes at 0x200.
    fn good() -> Vec<u8> {
        bin_file(&[0xfd, 0, 0, 0x200, 0x200, 0x100], &[0x42; 0x300])
    }

    fn with(word: usize, value: u32) -> Result<GenBootloader, Invalid> {
        let mut f = good();
        put32(&mut f, 24 + 4 * word, value);
        GenBootloader::parse(&f)
    }

    fn bad_value(r: Result<GenBootloader, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::BadValue { what, .. }) if what == field)
    }

    #[test]
    fn parses_a_good_file() {
        let b = GenBootloader::parse(&good()).expect("parse");
        assert_eq!(b.data, 48..48 + 0x300);
        assert_eq!((b.start_tag, b.code_size), (0xfd, 0x200));
    }

    #[test]
    fn rejects_truncated_descriptor() {
        let mut f = good();
        let at = (f.len() - 8) as u32;
        put32(&mut f, 12, at);
        assert!(matches!(
            GenBootloader::parse(&f),
            Err(Invalid::Truncated { what, .. }) if what == "bootloader descriptor"
        ));
    }

    #[test]
    fn rejects_code_not_at_the_start() {
        assert!(bad_value(with(2, 0x100), "bootloader code offset"));
    }

    #[test]
    fn rejects_dmem_descriptor_not_at_zero() {
        assert!(bad_value(
            with(1, 0x10),
            "bootloader DMEM descriptor offset"
        ));
    }

    #[test]
    fn rejects_empty_code() {
        assert!(bad_value(with(3, 0), "bootloader code size"));
    }

    #[test]
    fn rejects_code_outside_the_data() {
        assert!(matches!(
            with(3, 0x301),
            Err(Invalid::OutOfRange { what, .. }) if what == "bootloader code"
        ));
    }

    #[test]
    fn rejects_data_outside_the_data_region() {
        assert!(matches!(
            with(4, 0x280),
            Err(Invalid::OutOfRange { what, .. }) if what == "bootloader data"
        ));
    }

    #[test]
    fn rejects_code_larger_than_64_kib() {
        let f = bin_file(&[0, 0, 0, 0x1_0001, 0, 0], &vec![0; 0x1_0100]);
        assert!(bad_value(GenBootloader::parse(&f), "bootloader code size"));
    }

    #[test]
    fn rejects_wide_start_tag() {
        assert!(bad_value(with(0, 0x1_0000), "bootloader start tag"));
    }
}
