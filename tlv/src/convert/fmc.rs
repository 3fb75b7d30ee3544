// SPDX-License-Identifier: GPL-2.0

//! `fmc.tlv`, from `fmc-<version>.bin` (Hopper and Blackwell). nova-core's `firmware/fsp.rs`
//! reads every tag below; the sections are those nouveau's `gh100_gsp_oneinit` reads.
//!
//! | tag  | from |
//! |------|------|
//! | BLOB | the ELF section `image` |
//! | HASH | the ELF section `hash` (SHA-384, 48 bytes) |
//! | PKEY | the ELF section `publickey` |
//! | SIGN | the ELF section `signature` |

use crate::{
    error::Problem,
    package::fmc::Fmc,
    tlv::Writer, //
};

use super::bytes;

/// The TLV file of the FMC image `file`.
pub(super) fn convert(file: &[u8], version: &str) -> Result<Vec<u8>, Problem> {
    let f = Fmc::parse(file)?;
    let mut w = Writer::new();
    w.string(b"VERS", version)?;
    w.bytes(b"HASH", bytes(file, f.hash))?;
    w.bytes(b"PKEY", bytes(file, f.public_key))?;
    w.bytes(b"SIGN", bytes(file, f.signature))?;
    w.bytes(b"BLOB", bytes(file, f.image))?;
    Ok(w.finish()?)
}
