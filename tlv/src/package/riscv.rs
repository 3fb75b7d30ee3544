// SPDX-License-Identifier: GPL-2.0

//! The GSP's RISC-V bootloader (`bootloader-<version>.bin`): a binary header whose sub-header
//! is the RISC-V ucode descriptor (`RM_RISCV_UCODE_DESC` in NVIDIA's sources), giving the
//! manifest, the monitor's data and the monitor's code as offsets into the data region.

use std::ops::Range;

use super::{
    bin_hdr::BinFile,
    sub_region,
    words,
    Invalid, //
};

/// The oldest descriptor version whose layout this parser knows (the package's Turing files
/// have version 4, the others version 5; both start with the same fourteen words).
const MIN_DESC_VERSION: u32 = 4;

/// A parsed RISC-V bootloader: the fields nova-core's GSP bootloader TLV carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiscvBootloader {
    /// The ucode image.
    pub data: Range<usize>,
    pub app_version: u32,
    pub manifest_offset: u32,
    pub monitor_data_offset: u32,
    pub monitor_code_offset: u32,
}

impl RiscvBootloader {
    /// Parses a RISC-V bootloader file.
    pub fn parse(file: &[u8]) -> Result<RiscvBootloader, Invalid> {
        let bin = BinFile::parse(file)?;
        // Words 0 to 13: the version, the bootloader's offset and size, its parameters' offset
        // and size, the ELF image's offset and size, the application version, the manifest's
        // offset and size, the monitor data's offset and size, the monitor code's offset and
        // size. (Indexing a fixed-size array with constants: checked when compiling.)
        let desc = words::<14>(file, bin.header_offset, "RISC-V ucode descriptor")?;
        let version = desc[0];
        let app_version = desc[7];
        let (manifest_offset, manifest_size) = (desc[8], desc[9]);
        let (monitor_data_offset, monitor_data_size) = (desc[10], desc[11]);
        let (monitor_code_offset, monitor_code_size) = (desc[12], desc[13]);
        if version < MIN_DESC_VERSION {
            return Err(Invalid::BadValue {
                what: "RISC-V ucode descriptor version".into(),
                value: version.into(),
                why: "layouts before version 4 are not known",
            });
        }
        for (what, offset, size) in [
            ("manifest", manifest_offset, manifest_size),
            ("monitor data", monitor_data_offset, monitor_data_size),
            ("monitor code", monitor_code_offset, monitor_code_size),
        ] {
            sub_region(&bin.data, offset.into(), size.into(), what, "data region")?;
        }
        Ok(RiscvBootloader {
            data: bin.data,
            app_version,
            manifest_offset,
            monitor_data_offset,
            monitor_code_offset,
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

    /// Descriptor version 5: manifest 0x800 bytes at 0, monitor data 0x1000 at 0x800, monitor
    /// code 0x1000 at 0x1800, application version 7; 0x3000 bytes of data.
    fn good() -> Vec<u8> {
        let mut desc = [0u32; 21];
        desc[0] = 5;
        desc[7] = 7;
        desc[9] = 0x800;
        desc[10] = 0x800;
        desc[11] = 0x1000;
        desc[12] = 0x1800;
        desc[13] = 0x1000;
        bin_file(&desc, &[0x33; 0x3000])
    }

    fn with(word: usize, value: u32) -> Result<RiscvBootloader, Invalid> {
        let mut f = good();
        put32(&mut f, 24 + 4 * word, value);
        RiscvBootloader::parse(&f)
    }

    fn out_of_range(r: Result<RiscvBootloader, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::OutOfRange { what, .. }) if what == field)
    }

    #[test]
    fn parses_a_good_file() {
        let b = RiscvBootloader::parse(&good()).expect("parse");
        assert_eq!(b.data, 108..108 + 0x3000);
        assert_eq!(b.app_version, 7);
        assert_eq!(b.manifest_offset, 0);
        assert_eq!(b.monitor_data_offset, 0x800);
        assert_eq!(b.monitor_code_offset, 0x1800);
    }

    #[test]
    fn rejects_truncated_descriptor() {
        let mut f = good();
        // The sub-header 40 bytes before the end: fourteen words do not fit.
        let at = (f.len() - 40) as u32;
        put32(&mut f, 12, at);
        assert!(matches!(
            RiscvBootloader::parse(&f),
            Err(Invalid::Truncated { what, .. }) if what == "RISC-V ucode descriptor"
        ));
    }

    #[test]
    fn rejects_old_descriptor_version() {
        assert!(matches!(
            with(0, 3),
            Err(Invalid::BadValue { what, .. }) if what == "RISC-V ucode descriptor version"
        ));
    }

    #[test]
    fn rejects_manifest_outside_the_data() {
        assert!(out_of_range(with(8, 0x2900), "manifest"));
    }

    #[test]
    fn rejects_monitor_data_outside_the_data() {
        assert!(out_of_range(with(11, 0x2801), "monitor data"));
    }

    #[test]
    fn rejects_monitor_code_outside_the_data() {
        assert!(out_of_range(with(12, u32::MAX), "monitor code"));
    }
}
