// SPDX-License-Identifier: GPL-2.0

//! `booter_load.tlv` and `booter_unload.tlv`, from `booter_load-<version>.bin` and
//! `booter_unload-<version>.bin`. nova-core's `firmware/booter.rs` reads every tag below.
//!
//! | tag  | from |
//! |------|------|
//! | BLOB | the binary header's data region (the ucode image) |
//! | CDOF, CDSZ | HS load header v2: OS code offset and size |
//! | DAOF, DASZ | HS load header v2: OS data offset and size |
//! | A0CO, A0CS | HS load header v2: application 0's code offset and size |
//! | PLOC | the word at the HS header's `patch_loc` |
//! | NSIG | the word at the HS header's `num_sig` |
//! | SIGN | `sig_prod_size` bytes at `sig_prod_offset` + the word at `patch_sig` (HS header) |
//! | FUSE, ENID, UCID | the signature parameters at the HS header's `meta_data_offset` |

use crate::{
    error::Problem,
    package::booter::Booter,
    tlv::Writer, //
};

use super::bytes;

/// The TLV file of the Booter file `file`.
pub(super) fn convert(file: &[u8], version: &str) -> Result<Vec<u8>, Problem> {
    let b = Booter::parse(file)?;
    let mut w = Writer::new();
    w.string(b"VERS", version)?;
    w.u32(b"CDOF", b.os_code_offset)?;
    w.u32(b"CDSZ", b.os_code_size)?;
    w.u32(b"DAOF", b.os_data_offset)?;
    w.u32(b"DASZ", b.os_data_size)?;
    w.u32(b"A0CO", b.app0_code_offset)?;
    w.u32(b"A0CS", b.app0_code_size)?;
    w.u32(b"PLOC", b.patch_loc)?;
    w.u32(b"FUSE", b.fuse_version)?;
    w.u32(b"ENID", b.engine_id_mask)?;
    w.u32(b"UCID", b.ucode_id)?;
    w.u32(b"NSIG", b.num_sigs)?;
    w.bytes(b"SIGN", bytes(file, b.signatures))?;
    w.bytes(b"BLOB", bytes(file, b.data))?;
    Ok(w.finish()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        testing::{
            booter::*,
            booter_file, //
        },
        tlv::Tlv,
    };

    #[test]
    fn maps_the_headers_to_tags() {
        let f = booter_file();
        let out = convert(&f, "570.144").expect("convert");
        let t = Tlv::parse(&out).expect("parse");
        assert_eq!(t.string(b"VERS"), Some("570.144"));
        assert_eq!(t.get(b"BLOB"), Some(&f[DATA..DATA + 0x300]));
        assert_eq!(t.get(b"SIGN"), Some(&f[SIGS..SIGS + 0x20]));
        let u = |tag| t.u32(tag);
        assert_eq!((u(b"CDOF"), u(b"CDSZ")), (Some(0), Some(0x100)));
        assert_eq!((u(b"DAOF"), u(b"DASZ")), (Some(0x200), Some(0x100)));
        assert_eq!((u(b"A0CO"), u(b"A0CS")), (Some(0x100), Some(0x100)));
        assert_eq!((u(b"PLOC"), u(b"NSIG")), (Some(0x210), Some(2)));
        assert_eq!(
            (u(b"FUSE"), u(b"ENID"), u(b"UCID")),
            (Some(2), Some(1), Some(3))
        );
        assert_eq!(t.blocks().len(), 14);
    }
}
