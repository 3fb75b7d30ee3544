// SPDX-License-Identifier: GPL-2.0

//! The firmware package's files of the GSP boot chain for one chip, as the model reads them to
//! check what a driver hands over: per version, `booter_load` and `booter_unload` (HS ucode,
//! [`HsUcode`]), the RISC-V `bootloader` (NVIDIA's binary header, then `RM_RISCV_UCODE_DESC`:
//! the monitor's code and data offsets, the manifest's offset, the application version) and,
//! from `gsp-<version>.bin`, the whole `.fwimage` and the chip's `.fwsignature_*` section
//! (read when first needed: they are large).

use std::path::{
    Path,
    PathBuf, //
};

use super::firmware::{
    firmware_path,
    section, //
};
use super::wire::Version;
use crate::falcon::hs::HsUcode;

/// The RISC-V bootloader of GSP-RM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RiscvBootloader {
    /// The ucode (the file's data).
    pub ucode: Vec<u8>,
    pub code_offset: u32,
    pub data_offset: u32,
    pub manifest_offset: u32,
    pub app_version: u32,
}

impl RiscvBootloader {
    /// Parses `bootloader-<version>.bin`.
    pub fn parse(file: &[u8]) -> Result<RiscvBootloader, String> {
        let u32_at = |at: usize| {
            file.get(at..at + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| format!("cut at {at:#x}"))
        };
        if u32_at(0)? != 0x10de {
            return Err("no 0x10de magic".to_string());
        }
        let desc = u32_at(12)? as usize;
        let (data, size) = (u32_at(16)? as usize, u32_at(20)? as usize);
        let ucode = file
            .get(data..data.saturating_add(size))
            .filter(|u| u.len() == size)
            .ok_or_else(|| format!("data {data:#x}+{size:#x} outside the file"))?
            .to_vec();
        Ok(RiscvBootloader {
            ucode,
            app_version: u32_at(desc + 28)?,
            manifest_offset: u32_at(desc + 32)?,
            data_offset: u32_at(desc + 40)?,
            code_offset: u32_at(desc + 48)?,
        })
    }
}

/// The `.fwsignature_*` section of `chip`'s GSP-RM image (chips booted by the booter; the FSP
/// chain's are its family's, [`crate::fsp::family::Family::signature_section`]).
pub fn signature_section(chip: &str) -> Option<&'static str> {
    Some(match chip {
        "tu102" | "tu104" | "tu106" => ".fwsignature_tu10x",
        "tu116" | "tu117" => ".fwsignature_tu11x",
        "ga100" => ".fwsignature_ga100",
        "ga102" | "ga103" | "ga104" | "ga106" | "ga107" => ".fwsignature_ga10x",
        "ad102" | "ad103" | "ad104" | "ad106" | "ad107" => ".fwsignature_ad10x",
        _ => return None,
    })
}

/// GSP-RM's image in `gsp-<version>.bin`: the whole `.fwimage` and one signature section,
/// read when first needed (they are large).
pub struct GspImage {
    path: PathBuf,
    /// The signature section's name, or why the chip has none.
    section: Result<&'static str, String>,
    loaded: Option<(Vec<u8>, Vec<u8>)>,
}

impl GspImage {
    /// The image in the file at `path`, with the signature section `section`.
    pub fn new(path: PathBuf, section: Result<&'static str, String>) -> GspImage {
        GspImage {
            path,
            section,
            loaded: None,
        }
    }

    /// `.fwimage` and the signature.
    pub fn get(&mut self) -> Result<&(Vec<u8>, Vec<u8>), String> {
        if self.loaded.is_none() {
            let name = self.section.clone()?;
            let show = |e: String| format!("{}: {e}", self.path.display());
            let fwimage = section(&self.path, ".fwimage").map_err(show)?;
            let signature = section(&self.path, name).map_err(show)?;
            self.loaded = Some((fwimage, signature));
        }
        Ok(self.loaded.as_ref().expect("just read"))
    }
}

/// One version's files.
pub struct VersionFiles {
    pub version: Version,
    pub booter_load: HsUcode,
    pub booter_unload: HsUcode,
    pub bootloader: RiscvBootloader,
    /// `.fwimage` and the signature.
    image: GspImage,
}

impl VersionFiles {
    /// The whole `.fwimage` and the chip's signature section.
    pub fn image(&mut self) -> Result<&(Vec<u8>, Vec<u8>), String> {
        self.image.get()
    }
}

/// Every version of the package present for one chip.
pub struct Package {
    pub versions: Vec<VersionFiles>,
}

impl Package {
    /// Reads the small files of each version under `root` for `chip`; `log` gets one line per
    /// version that is missing or unusable.
    pub fn load(root: &Path, chip: &'static str, log: &mut dyn FnMut(String)) -> Package {
        let mut versions = Vec::new();
        for version in Version::ALL {
            let dir = root.join("nvidia").join(chip).join("gsp");
            let read = |name: &str| {
                let path = dir.join(format!("{name}-{}.bin", version.name()));
                std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))
            };
            let parsed = (|| {
                let hs = |name: &str| {
                    read(name).and_then(|f| HsUcode::parse(&f).map_err(|e| format!("{name}: {e}")))
                };
                Ok::<_, String>(VersionFiles {
                    version,
                    booter_load: hs("booter_load")?,
                    booter_unload: hs("booter_unload")?,
                    bootloader: read("bootloader").and_then(|f| {
                        RiscvBootloader::parse(&f).map_err(|e| format!("bootloader: {e}"))
                    })?,
                    image: GspImage::new(
                        firmware_path(root, chip, version),
                        signature_section(chip)
                            .ok_or_else(|| format!("no GSP-RM signature section for {chip}")),
                    ),
                })
            })();
            match parsed {
                Ok(files) => versions.push(files),
                Err(e) => log(format!("boot chain: {} not usable: {e}", version.name())),
            }
        }
        Package { versions }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(f: &mut [u8], at: usize, v: u32) {
        f[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    #[test]
    fn reads_the_riscv_descriptor() {
        let mut f = vec![0u8; 0x200];
        for (at, v) in [(0, 0x10de), (12, 0x40), (16, 0x100), (20, 0x80)] {
            put(&mut f, at, v);
        }
        for (at, v) in [
            (0x40 + 28, 7),
            (0x40 + 32, 0x30),
            (0x40 + 40, 0x20),
            (0x40 + 48, 0x10),
        ] {
            put(&mut f, at, v);
        }
        f[0x100..0x180].fill(0xab);
        let bl = RiscvBootloader::parse(&f).unwrap();
        assert_eq!(
            (
                bl.app_version,
                bl.manifest_offset,
                bl.data_offset,
                bl.code_offset
            ),
            (7, 0x30, 0x20, 0x10)
        );
        assert_eq!(bl.ucode, vec![0xab; 0x80]);
        put(&mut f, 20, 0x200);
        assert!(RiscvBootloader::parse(&f).is_err());
    }
}
