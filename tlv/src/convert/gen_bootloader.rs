// SPDX-License-Identifier: GPL-2.0

//! `gen_bootloader.tlv`, from `gen_bootloader-570.144.bin`. nova-core's
//! `firmware/fwsec/bootloader.rs` reads every tag below.
//!
//! | tag  | from |
//! |------|------|
//! | BLOB | the binary header's data region (the ucode image; its code starts at 0) |
//! | CDSZ | the bootloader descriptor's code size |
//! | STRT | the bootloader descriptor's start tag |

use crate::{
    error::Problem,
    package::gen_bootloader::GenBootloader,
    tlv::Writer, //
};

use super::bytes;

/// The one version of the generic bootloader NVIDIA ships (tu102's, which tu116 and ga100 link
/// to): nova_core's own `fwsec.rs` loads it with either GSP firmware version, and so does the
/// converter.
pub const GEN_BOOTLOADER_VERSION: &str = "570.144";

/// The TLV file of the generic bootloader file `file`.
pub(super) fn convert(file: &[u8], version: &str) -> Result<Vec<u8>, Problem> {
    let b = GenBootloader::parse(file)?;
    let mut w = Writer::new();
    w.string(b"VERS", version)?;
    w.u32(b"STRT", b.start_tag)?;
    w.u32(b"CDSZ", b.code_size)?;
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
        let f = bin_file(&[0xfd, 0, 0, 0x200, 0x200, 0x100], &[0x42; 0x300]);
        let out = convert(&f, "570.144").expect("convert");
        let t = Tlv::parse(&out).expect("parse");
        assert_eq!(t.get(b"BLOB"), Some(&f[48..]));
        assert_eq!(t.u32(b"STRT"), Some(0xfd));
        assert_eq!(t.u32(b"CDSZ"), Some(0x200));
        assert_eq!(t.blocks().len(), 4);
    }
}
