// SPDX-License-Identifier: GPL-2.0

//! The FMC image (`fmc-<version>.bin`, Hopper and Blackwell): the firmware the FSP verifies and
//! runs as GSP-FMC, which then starts GSP-RM. An ELF32 file whose sections the FSP's
//! chain-of-trust message carries: `image` (the code, handed over by DMA), `hash` (its
//! SHA-384), `publickey` and `signature`, each of exactly the size the chip family's FSP
//! takes.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use crate::{
    chip::Chipset,
    fsp::{
        protocol::HASH_SIZE, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

use super::{
    elf::{
        Section,
        Sections, //
    },
    error::FwError,
};

/// The validated FMC image: its four sections, borrowed from the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FmcImage<'a> {
    /// The code, non-empty.
    pub(crate) image: &'a [u8],
    /// [`HASH_SIZE`] bytes.
    pub(crate) hash: &'a [u8],
    /// The family's key and signature sizes.
    pub(crate) public_key: &'a [u8],
    pub(crate) signature: &'a [u8],
}

/// The bytes of `name`, which must be `want` bytes long when `want` is given (non-empty
/// otherwise).
fn section<'a>(
    file: &'a [u8],
    sections: &Sections,
    name: &'static str,
    want: Option<usize>,
) -> Result<&'a [u8], FwError> {
    let s: &Section = sections.find(name).ok_or(FwError::MissingSection(name))?;
    let bytes = s
        .offset
        .checked_add(s.size)
        .and_then(|end| file.get(s.offset..end))
        .ok_or(FwError::OutOfFile(name))?;
    match want {
        Some(want) if bytes.len() != want => Err(FwError::SectionSize {
            name,
            got: bytes.len(),
            want,
        }),
        None if bytes.is_empty() => Err(FwError::SectionSize {
            name,
            got: 0,
            want: 1,
        }),
        _ => Ok(bytes),
    }
}

impl<'a> Validator<(&'a Untrusted<[u8]>, Chipset)> for FmcImage<'a> {
    type Err = FwError;

    fn validate((file, chipset): (&'a [u8], Chipset)) -> Result<FmcImage<'a>, FwError> {
        let hal = chipset.family().fsp().ok_or(FwError::Malformed(
            "an FMC image for a chip that does not boot through the FSP",
        ))?;
        let sections = Sections::validate(file)?;
        Ok(FmcImage {
            image: section(file, &sections, "image", None)?,
            hash: section(file, &sections, "hash", Some(HASH_SIZE))?,
            public_key: section(file, &sections, "publickey", Some(hal.public_key_size))?,
            signature: section(file, &sections, "signature", Some(hal.signature_size))?,
        })
    }
}
