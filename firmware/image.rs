// SPDX-License-Identifier: GPL-2.0

//! What the GSP firmware files must contain: their versions and roles, and the validation of
//! each file's structure and content (the ELF, binary-header and booter validators live in
//! `elf.rs`, `bin_hdr.rs` and `booter.rs`).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::{
    chip::Chipset,
    family::{
        Boot,
        Family, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

use super::{
    bin_hdr::BinFile,
    booter::BooterImage,
    elf::{
        Section,
        Sections, //
    },
    error::FwError,
    fmc::FmcImage,
};

pub(crate) use crate::gsp::versions::FwVersion;

/// One firmware file of a GSP boot, by role.
#[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
pub(crate) enum FileKind {
    BooterLoad,
    BooterUnload,
    Bootloader,
    Fmc,
    Gsp,
}

impl FileKind {
    /// The files a chip of `family` needs, in the order they are requested.
    pub(crate) const fn needed_by(family: &Family) -> &'static [FileKind] {
        match family.boot {
            Boot::Booter(_) => &[
                FileKind::BooterLoad,
                FileKind::BooterUnload,
                FileKind::Bootloader,
                FileKind::Gsp,
            ],
            Boot::Fsp(_) => &[FileKind::Fmc, FileKind::Bootloader, FileKind::Gsp],
        }
    }

    /// The file name's stem.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            FileKind::BooterLoad => "booter_load",
            FileKind::BooterUnload => "booter_unload",
            FileKind::Bootloader => "bootloader",
            FileKind::Fmc => "fmc",
            FileKind::Gsp => "gsp",
        }
    }
}

/// Longest `.fwversion` content accepted, terminating NUL included.
const MAX_VERSION_LEN: usize = 16;

/// The validated GSP image (`gsp-<version>.bin`): an ELF64 file with the firmware image, its
/// version and the signature for one chip family. Borrows the file: the image and signature
/// are the validated sections' bytes, opaque to the driver, which hands them to the GSP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GspImage<'a> {
    /// `.fwimage`, non-empty.
    pub(crate) image: &'a [u8],
    /// Where `.fwimage` starts in the file.
    pub(crate) image_offset: usize,
    /// The chip family's signature section, non-empty.
    pub(crate) signature: &'a [u8],
    /// Where the signature starts in the file.
    pub(crate) signature_offset: usize,
}

/// The bytes of a section the [`Sections`] validator accepted (inside the file).
fn section_bytes<'a>(file: &'a [u8], s: &Section) -> Result<&'a [u8], FwError> {
    s.offset
        .checked_add(s.size)
        .and_then(|end| file.get(s.offset..end))
        .ok_or(FwError::OutOfFile("section"))
}

/// A GSP image is validated against the version its file name gives and the chip it is for:
/// the structural checks are the [`Sections`] validator's, this adds the content checks.
impl<'a> Validator<(&'a Untrusted<[u8]>, (FwVersion, Chipset))> for GspImage<'a> {
    type Err = FwError;

    fn validate(
        (file, (version, chipset)): (&'a [u8], (FwVersion, Chipset)),
    ) -> Result<GspImage<'a>, FwError> {
        let sections = Sections::validate(file)?;
        let image = sections
            .find(".fwimage")
            .ok_or(FwError::MissingSection(".fwimage"))?;
        let fwversion = sections
            .find(".fwversion")
            .ok_or(FwError::MissingSection(".fwversion"))?;
        let sig_name = chipset.signature_section();
        let signature = sections
            .find(sig_name)
            .ok_or(FwError::MissingSection(sig_name))?;
        if image.size == 0 || signature.size == 0 {
            return Err(FwError::Malformed("empty image or signature section"));
        }

        let raw = section_bytes(file, fwversion)?;
        if raw.len() > MAX_VERSION_LEN {
            return Err(FwError::Malformed(".fwversion too long"));
        }
        // The version must be NUL-terminated and equal to the file name's, byte for byte.
        let expected = version.name().as_bytes();
        if raw.strip_suffix(&[0u8]) != Some(expected) {
            return Err(FwError::VersionMismatch);
        }

        Ok(GspImage {
            image: section_bytes(file, image)?,
            image_offset: image.offset,
            signature: section_bytes(file, signature)?,
            signature_offset: signature.offset,
        })
    }
}

/// The validated structure of one requested file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Validated<'a> {
    Bin(BinFile),
    Booter(BooterImage<'a>),
    Fmc(FmcImage<'a>),
    Gsp(GspImage<'a>),
}

impl core::fmt::Display for Validated<'_> {
    /// What the driver found in the file (its debug-level log line).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Validated::Bin(b) => write!(
                f,
                "ucode {:#x} bytes at {:#x}, header at {:#x}",
                b.data_size, b.data_offset, b.header_offset
            ),
            Validated::Booter(b) => fmt::Display::fmt(b, f),
            Validated::Fmc(m) => write!(
                f,
                "FMC image {:#x} bytes, public key {} bytes, signature {} bytes",
                m.image.len(),
                m.public_key.len(),
                m.signature.len()
            ),
            Validated::Gsp(g) => write!(
                f,
                ".fwimage {:#x} bytes at {:#x}, signature {:#x} bytes at {:#x}",
                g.image.len(),
                g.image_offset,
                g.signature.len(),
                g.signature_offset
            ),
        }
    }
}

/// Validates the contents of one file of role `kind`, named for `version` and `chipset`.
pub(crate) fn validate_file(
    kind: FileKind,
    data: &Untrusted<[u8]>,
    version: FwVersion,
    chipset: Chipset,
) -> Result<Validated<'_>, FwError> {
    if data.is_empty() {
        return Err(FwError::Empty);
    }
    match kind {
        FileKind::BooterLoad | FileKind::BooterUnload => data
            .validate_ref_against::<BooterImage<'_>, _>(chipset)
            .map(Validated::Booter),
        FileKind::Bootloader => data.validate_ref::<BinFile>().map(Validated::Bin),
        FileKind::Fmc => data
            .validate_ref_against::<FmcImage<'_>, _>(chipset)
            .map(Validated::Fmc),
        FileKind::Gsp => data
            .validate_ref_against::<GspImage<'_>, _>((version, chipset))
            .map(Validated::Gsp),
    }
}
