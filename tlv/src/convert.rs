// SPDX-License-Identifier: GPL-2.0

//! The conversion of one chip's package files into the TLV files nova-core requests: which
//! package file each TLV file comes from, reading them, and writing the results. The mapping of
//! each file's fields to tags is in the submodule of that file.
//!
//! Every file is read and converted before anything is written, so a bad input leaves the
//! output folder as it was.

use std::{
    fs,
    path::{
        Path,
        PathBuf, //
    },
};

use crate::{
    chip::{
        Chip,
        TlvFile, //
    },
    error::{
        Error,
        Problem, //
    },
};

mod booter;
mod fmc;
mod gen_bootloader;
mod gsp;
mod gsp_bootloader;

pub use gen_bootloader::GEN_BOOTLOADER_VERSION;
pub use gsp::COMPANION;

/// One file to write into the output folder.
#[derive(Debug)]
pub struct Output {
    /// Its name, without a path.
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The version of the package file `file` is made from: the version converted, except for the
/// generic bootloader, which NVIDIA ships in one version only.
pub fn source_version(file: TlvFile, version: &str) -> &str {
    match file {
        TlvFile::GenBootloader => GEN_BOOTLOADER_VERSION,
        _ => version,
    }
}

/// The package file `file` is made from, for `chip` and `version`, under `firmware_dir`.
pub fn source_path(firmware_dir: &Path, chip: &Chip, file: TlvFile, version: &str) -> PathBuf {
    firmware_dir
        .join("nvidia")
        .join(chip.name)
        .join("gsp")
        .join(format!(
            "{}-{}.bin",
            file.source(),
            source_version(file, version)
        ))
}

/// The TLV file `file` (and, for `gsp`, its companion) from the package file `data`.
fn convert_file(
    file: TlvFile,
    data: &[u8],
    chip: &Chip,
    version: &str,
) -> Result<Vec<Output>, Problem> {
    let version = source_version(file, version);
    let tlv = |bytes| {
        vec![Output {
            name: format!("{}.tlv", file.name()),
            bytes,
        }]
    };
    Ok(match file {
        TlvFile::BooterLoad | TlvFile::BooterUnload => tlv(booter::convert(data, version)?),
        TlvFile::GenBootloader => tlv(gen_bootloader::convert(data, version)?),
        TlvFile::Fmc => tlv(fmc::convert(data, version)?),
        TlvFile::GspBootloader => tlv(gsp_bootloader::convert(data, version)?),
        TlvFile::Gsp => gsp::convert(data, version, chip.family.signature)?,
    })
}

/// Every file nova-core requests for `chip`, made from the package files of `version` under
/// `firmware_dir` (the folder holding `nvidia/`).
pub fn convert(firmware_dir: &Path, chip: &Chip, version: &str) -> Result<Vec<Output>, Error> {
    let mut out = Vec::new();
    for &file in chip.family.files {
        let path = source_path(firmware_dir, chip, file, version);
        let data = fs::read(&path).map_err(|e| Error {
            path: path.clone(),
            problem: Problem::Read(e),
        })?;
        let outputs =
            convert_file(file, &data, chip, version).map_err(|problem| Error { path, problem })?;
        out.extend(outputs);
    }
    Ok(out)
}

/// Writes `outputs` into `dir` (created if missing). Each file is written under a temporary
/// name and renamed into place, so an existing file (or a symbolic link, as firmware folders
/// have) is replaced, never written through.
pub fn write(dir: &Path, outputs: &[Output]) -> Result<(), Error> {
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |e| Error {
            path,
            problem: Problem::Write(e),
        }
    };
    fs::create_dir_all(dir).map_err(fail(dir))?;
    for o in outputs {
        let path = dir.join(&o.name);
        let temp = dir.join(format!(".{}.nova-tlv", o.name));
        fs::write(&temp, &o.bytes).map_err(fail(&temp))?;
        fs::rename(&temp, &path).map_err(fail(&path))?;
    }
    Ok(())
}

/// The bytes of `range` of `file`; the parsers have checked every range they return, so this
/// is empty only for a range that was never checked.
fn bytes(file: &[u8], range: std::ops::Range<usize>) -> &[u8] {
    file.get(range).unwrap_or_default()
}
