// SPDX-License-Identifier: GPL-2.0

//! `gsp_bootloader.tlv`, from `bootloader-<version>.bin`. nova-core's `firmware/riscv.rs`
//! reads every tag below.
//!
//! | tag  | from |
//! |------|------|
//! | BLOB | the binary header's data region (the ucode image) |
//! | CDOF | the RISC-V ucode descriptor's monitor code offset |
//! | DAOF | the RISC-V ucode descriptor's monitor data offset |
//! | MFOF | the RISC-V ucode descriptor's manifest offset |
//! | APPV | the RISC-V ucode descriptor's application version |

use crate::{
    error::Problem,
    package::riscv::RiscvBootloader,
    tlv::Writer, //
};

use super::bytes;

/// The TLV file of the RISC-V bootloader file `file`.
pub(super) fn convert(file: &[u8], version: &str) -> Result<Vec<u8>, Problem> {
    let b = RiscvBootloader::parse(file)?;
    let mut w = Writer::new();
    w.string(b"VERS", version)?;
    w.u32(b"CDOF", b.monitor_code_offset)?;
    w.u32(b"DAOF", b.monitor_data_offset)?;
    w.u32(b"MFOF", b.manifest_offset)?;
    w.u32(b"APPV", b.app_version)?;
    w.bytes(b"BLOB", bytes(file, b.data))?;
    Ok(w.finish()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        testing::bin_file,
        tlv::Tlv, //
    };

    #[test]
    fn maps_the_descriptor_to_tags() {
        let mut desc = [0u32; 14];
        desc[0] = 5;
        desc[7] = 9;
        desc[8] = 0x100;
        desc[10] = 0x200;
        desc[12] = 0x300;
        let f = bin_file(&desc, &[7; 0x400]);
        let out = convert(&f, "535.113.01").expect("convert");
        let t = Tlv::parse(&out).expect("parse");
        assert_eq!(t.string(b"VERS"), Some("535.113.01"));
        assert_eq!(t.get(b"BLOB"), Some(&f[80..]));
        assert_eq!(t.u32(b"CDOF"), Some(0x300));
        assert_eq!(t.u32(b"DAOF"), Some(0x200));
        assert_eq!(t.u32(b"MFOF"), Some(0x100));
        assert_eq!(t.u32(b"APPV"), Some(9));
    }
}
