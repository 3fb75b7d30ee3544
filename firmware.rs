// SPDX-License-Identifier: GPL-2.0

//! Versioned GSP firmware: which files a chip needs, requesting them, and validating them.
//!
//! Files are named as in linux-firmware: `nvidia/<chipset>/gsp/<name>-<version>.bin`. Turing,
//! Ampere and Ada boot the GSP through `booter_load`/`booter_unload` and a `bootloader`; Hopper
//! and Blackwell through `fmc` and a `bootloader`. The GSP image itself is `gsp`. Versions are
//! tried newest first unless the `gsp_version` module parameter forces one; a version whose files
//! are missing or invalid is reported and the next one is tried.

use kernel::{
    device,
    firmware::Firmware,
    prelude::*,
    str::CString, //
};

use crate::{
    chip::{
        Chipset,
        Spec, //
    },
    untrusted::Untrusted,
};

pub(crate) mod bin_hdr;
pub(crate) mod booter;
pub(crate) mod elf;
pub(crate) mod error;
pub(crate) mod fmc;
pub(crate) mod image;
pub(crate) mod riscv;

pub(crate) use error::FwError;
pub(crate) use image::{
    validate_file,
    FileKind,
    FwVersion,
    Validated, //
};

impl FwError {
    /// The error code the probe returns: every invalid file is `EINVAL`.
    pub(crate) fn errno(self) -> Error {
        EINVAL
    }
}

/// Path of a firmware file.
pub(crate) fn path(chipset: Chipset, kind: FileKind, version: FwVersion) -> Result<CString> {
    CString::try_from_fmt(fmt!(
        "nvidia/{}/gsp/{}-{}.bin",
        chipset.name(),
        kind.name(),
        version.name()
    ))
}

/// The generic bootloader's file name stem.
pub(crate) const GEN_BOOTLOADER: &str = "gen_bootloader";

/// The version the generic bootloader is shipped under.
pub(crate) const GEN_BOOTLOADER_VERSION: FwVersion = FwVersion::R570_144;

/// The same bootloader under its older name in the chip's folder, in every package that has
/// Turing files (nouveau's `nvkm/subdev/gsp/fwsec.c` loads it for FWSEC): taken where the
/// package has no 570.144 files. The host tests check that both files hold the same code.
pub(crate) const ACR_BOOTLOADER: &str = "acr/bl.bin";

/// Whether `chipset` loads FWSEC through the generic bootloader (Turing; GA100 too, which runs
/// no FWSEC-FRTS but runs FWSEC-SB at teardown).
pub(crate) const fn needs_gen_bootloader(chipset: Chipset) -> bool {
    matches!(chipset.family().booter(), Some(facts) if facts.gen_bootloader)
}

/// The GSP firmware set chosen for a device: every file present and valid.
pub(crate) struct GspFirmware {
    pub(crate) version: FwVersion,
    /// Size of the GSP image's `.fwimage` (the framebuffer layout's ELF region).
    pub(crate) elf_size: usize,
    /// Size of the bootloader's ucode (the layout's boot region).
    pub(crate) bootloader_size: usize,
    /// What the boot hands over, copied out of the validated files; taken by the boot, which
    /// keeps only what teardown needs.
    pub(crate) boot: Option<BootFiles>,
}

/// What starts GSP-RM, as the firmware files give it.
pub(crate) enum Starter {
    /// Turing to Ada: `booter_load` and `booter_unload`, whole, as read: validated where they
    /// are loaded (`docs/boot-chain.md`).
    Booter {
        load: Untrusted<KVVec<u8>>,
        unload: Untrusted<KVVec<u8>>,
    },
    /// Hopper and Blackwell: the FMC image the FSP verifies and runs (`docs/fsp-chain.md`).
    Fmc(FmcFiles),
}

/// The FMC image's validated sections.
pub(crate) struct FmcFiles {
    pub(crate) image: KVVec<u8>,
    pub(crate) hash: KVVec<u8>,
    pub(crate) public_key: KVVec<u8>,
    pub(crate) signature: KVVec<u8>,
}

/// The validated files' contents the boot needs: GSP-RM's, and its starter's.
pub(crate) struct BootFiles {
    pub(crate) gsp: GspFiles,
    pub(crate) starter: Starter,
}

/// GSP-RM's image, signature and bootloader.
pub(crate) struct GspFiles {
    /// `.fwimage` of the GSP image, mapped for GSP-RM through radix3 page tables: whole pages,
    /// `image_size` bytes of them the image.
    pub(crate) image: VVec<u8>,
    pub(crate) image_size: usize,
    /// The chip family's signature section of the GSP image.
    pub(crate) signature: KVVec<u8>,
    /// The RISC-V bootloader's ucode and its offsets.
    pub(crate) bootloader: KVVec<u8>,
    pub(crate) bootloader_code_offset: u32,
    pub(crate) bootloader_data_offset: u32,
    pub(crate) bootloader_manifest_offset: u32,
    pub(crate) bootloader_app_version: u32,
}

/// A copy of validated bytes.
fn copy(bytes: &[u8]) -> Result<KVVec<u8>> {
    let mut v = KVVec::new();
    v.extend_from_slice(bytes, GFP_KERNEL)?;
    Ok(v)
}

/// What of each file [`load_version`] keeps for the boot through the booter.
#[derive(Default)]
struct Kept {
    image: Option<(VVec<u8>, usize, KVVec<u8>)>,
    bootloader: Option<(KVVec<u8>, [u32; 4])>,
    booter_load: Option<Untrusted<KVVec<u8>>>,
    booter_unload: Option<Untrusted<KVVec<u8>>>,
    fmc: Option<FmcFiles>,
}

/// A copy of untrusted bytes, untrusted.
fn copy_untrusted(data: &Untrusted<[u8]>) -> Result<Untrusted<KVVec<u8>>> {
    let mut v = Untrusted::new_untrusted(KVVec::new());
    v.extend_from_untrusted(data, GFP_KERNEL)?;
    Ok(v)
}

impl Kept {
    /// Keeps what the boot needs of the file of role `kind`, `data`, validated as `validated`;
    /// a problem is logged (as a warning: the next version may do) under the file's name.
    fn keep(
        &mut self,
        dev: &device::Device,
        shown: &str,
        kind: FileKind,
        data: &Untrusted<[u8]>,
        validated: &Validated<'_>,
    ) -> Result {
        match (kind, validated) {
            (FileKind::Gsp, Validated::Gsp(image)) => {
                // Whole pages, the tail zeroed: the device reads whole pages.
                let len = image.image.len();
                let pages = len.checked_next_multiple_of(0x1000).ok_or(EOVERFLOW)?;
                let mut v = VVec::with_capacity(pages, GFP_KERNEL)?;
                v.extend_from_slice(image.image, GFP_KERNEL)?;
                v.resize(pages, 0, GFP_KERNEL)?;
                self.image = Some((v, len, copy(image.signature)?));
            }
            (FileKind::Bootloader, _) => {
                let bl = data
                    .validate_ref::<riscv::RiscvBootloader<'_>>()
                    .map_err(|e| {
                        dev_warn!(dev, "{}: invalid: {}\n", shown, e);
                        e.errno()
                    })?;
                self.bootloader = Some((
                    copy(bl.ucode)?,
                    [
                        bl.code_offset,
                        bl.data_offset,
                        bl.manifest_offset,
                        bl.app_version,
                    ],
                ));
            }
            (FileKind::BooterLoad, _) => self.booter_load = Some(copy_untrusted(data)?),
            (FileKind::BooterUnload, _) => self.booter_unload = Some(copy_untrusted(data)?),
            (FileKind::Fmc, Validated::Fmc(fmc)) => {
                self.fmc = Some(FmcFiles {
                    image: copy(fmc.image)?,
                    hash: copy(fmc.hash)?,
                    public_key: copy(fmc.public_key)?,
                    signature: copy(fmc.signature)?,
                })
            }
            _ => {}
        }
        Ok(())
    }

    /// The boot files, if every one was kept.
    fn files(self) -> Option<BootFiles> {
        let (image, image_size, signature) = self.image?;
        let (bootloader, [code, data, manifest, app]) = self.bootloader?;
        Some(BootFiles {
            gsp: GspFiles {
                image,
                image_size,
                signature,
                bootloader,
                bootloader_code_offset: code,
                bootloader_data_offset: data,
                bootloader_manifest_offset: manifest,
                bootloader_app_version: app,
            },
            starter: match (self.fmc, self.booter_load, self.booter_unload) {
                (Some(fmc), _, _) => Starter::Fmc(fmc),
                (None, Some(load), Some(unload)) => Starter::Booter { load, unload },
                _ => return None,
            },
        })
    }
}

/// Requests and validates every file of `version` for `spec`; logs the first problem (as a
/// warning).
fn load_version(dev: &device::Device, spec: &Spec, version: FwVersion) -> Result<GspFirmware> {
    let mut elf_size = None;
    let mut bootloader_size = None;
    let mut kept = Kept::default();
    for &kind in FileKind::needed_by(spec.family()) {
        let name = path(spec.chipset, kind, version)?;
        let shown = name.to_str().unwrap_or("?");
        // A file's problem is a warning: the next version may do. Only finding none is an
        // error (in `load`).
        let fw = Firmware::request_nowarn(&name, dev).inspect_err(|e| {
            dev_warn!(dev, "{}: cannot load (error {})\n", shown, e.to_errno());
        })?;
        let data = Untrusted::new_untrusted_ref(fw.data());
        let validated = validate_file(kind, data, version, spec.chipset).map_err(|e| {
            dev_warn!(dev, "{}: invalid: {}\n", shown, e);
            e.errno()
        })?;
        dev_dbg!(
            dev,
            "{}: {} bytes, valid: {}\n",
            shown,
            data.len(),
            validated
        );
        kept.keep(dev, shown, kind, data, &validated)?;
        match validated {
            Validated::Gsp(image) => {
                elf_size = Some(image.image.len());
            }
            Validated::Bin(bin) if kind == FileKind::Bootloader => {
                bootloader_size = Some(bin.data_size)
            }
            _ => {}
        }
    }
    // Every architecture's file list has the GSP image and the bootloader, and each validates
    // as its kind: a set without them is the driver's mistake, said in one line.
    let (Some(elf_size), Some(bootloader_size)) = (elf_size, bootloader_size) else {
        dev_err!(
            dev,
            "GSP firmware {}: no GSP image or bootloader among its files\n",
            version
        );
        return Err(ENOENT);
    };
    let boot = Some(kept.files().ok_or_else(|| {
        dev_err!(
            dev,
            "GSP firmware {}: a file of the boot is missing\n",
            version
        );
        ENOENT
    })?);
    Ok(GspFirmware {
        version,
        elf_size,
        bootloader_size,
        boot,
    })
}

/// Loads the GSP firmware for `spec`: the forced version if `forced` is given, otherwise the
/// newest version whose files are all present and valid.
pub(crate) fn load(
    dev: &device::Device,
    spec: &Spec,
    forced: Option<FwVersion>,
) -> Result<GspFirmware> {
    let mut last = ENOENT;
    let mut tried_any = false;
    for &version in FwVersion::ALL {
        if forced.is_some_and(|f| f != version) || !version.supports(spec.chipset) {
            continue;
        }
        if tried_any {
            dev_warn!(dev, "falling back to GSP firmware {}\n", version);
        }
        tried_any = true;
        match load_version(dev, spec, version) {
            Ok(fw) => return Ok(fw),
            Err(e) => last = e,
        }
    }
    if !tried_any {
        if let Some(f) = forced {
            dev_err!(
                dev,
                "GSP firmware {} does not exist for {}\n",
                f,
                spec.chipset
            );
        }
        return Err(ENOENT);
    }
    dev_err!(dev, "no usable GSP firmware for {}\n", spec.chipset);
    Err(last)
}

/// Builds the `firmware:` entries of `modinfo`: every file of every version for every chip, and
/// the generic bootloader (under both its names) of the chips that load FWSEC through it.
pub(crate) struct ModInfoBuilder<const N: usize>(kernel::firmware::ModInfoBuilder<N>);

impl<const N: usize> ModInfoBuilder<N> {
    const fn file(self, chipset: Chipset, name: &str, version: FwVersion) -> Self {
        Self(
            self.0
                .new_entry()
                .push("nvidia/")
                .push(chipset.name())
                .push("/gsp/")
                .push(name)
                .push("-")
                .push(version.name())
                .push(".bin"),
        )
    }

    /// Creates the builder; called by `kernel::module_firmware!`.
    pub(crate) const fn create(
        module_name: &'static kernel::str::CStr,
    ) -> kernel::firmware::ModInfoBuilder<N> {
        let mut this = Self(kernel::firmware::ModInfoBuilder::new(module_name));
        let mut c = 0;
        while c < Chipset::ALL.len() {
            let chipset = Chipset::ALL[c];
            let mut v = 0;
            while v < FwVersion::ALL.len() {
                let version = FwVersion::ALL[v];
                if version.supports(chipset) {
                    let files = FileKind::needed_by(chipset.family());
                    let mut f = 0;
                    while f < files.len() {
                        this = this.file(chipset, files[f].name(), version);
                        f += 1;
                    }
                }
                v += 1;
            }
            if needs_gen_bootloader(chipset) {
                this = this.file(chipset, GEN_BOOTLOADER, GEN_BOOTLOADER_VERSION);
                this = Self(
                    this.0
                        .new_entry()
                        .push("nvidia/")
                        .push(chipset.name())
                        .push("/")
                        .push(ACR_BOOTLOADER),
                );
            }
            c += 1;
        }
        this.0
    }
}

#[kunit_tests(nova_core_firmware)]
mod tests {
    use super::bin_hdr::BinFile;
    use super::image::GspImage;
    use super::*;
    use kernel::faux;

    /// Requests a real firmware file through a faux device, as a probe would.
    fn request(chipset: Chipset, kind: FileKind, version: FwVersion) -> Result<Firmware> {
        let reg = faux::Registration::new(c"nova_core_kunit", None)?;
        let name = path(chipset, kind, version)?;
        let dev: &device::Device = reg.as_ref().as_ref();
        Firmware::request_nowarn(&name, dev)
    }

    fn untrusted(bytes: &[u8]) -> &Untrusted<[u8]> {
        Untrusted::new_untrusted_ref(bytes)
    }

    /// Copies a file into a vector the test may corrupt.
    fn copy(bytes: &[u8]) -> Result<VVec<u8>> {
        let mut v = VVec::with_capacity(bytes.len(), GFP_KERNEL)?;
        v.extend_from_slice(bytes, GFP_KERNEL)?;
        Ok(v)
    }

    fn put32(buf: &mut [u8], off: usize, v: u32) {
        buf[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn put64(buf: &mut [u8], off: usize, v: u64) {
        buf[off..off + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// A small ELF64 GSP image with the real layout: `.fwimage`, `.fwversion` = "570.144",
    /// `.fwsignature_ga10x`, then the section name table and the section headers.
    ///
    /// Returns the image and the offset of its section header table.
    fn synthetic_gsp() -> Result<(KVec<u8>, usize)> {
        const NAMES: &[u8] = b"\0.fwimage\0.fwversion\0.fwsignature_ga10x\0.shstrtab\0";
        let mut f = KVec::new();
        f.resize(64, 0u8, GFP_KERNEL)?;
        f[..4].copy_from_slice(b"\x7fELF");
        f[4] = 2;
        f[5] = 1;
        f[6] = 1;
        let image = f.len();
        f.resize(image + 256, 0xaa, GFP_KERNEL)?;
        let version = f.len();
        f.extend_from_slice(b"570.144\0", GFP_KERNEL)?;
        let sig = f.len();
        f.resize(sig + 64, 0x55, GFP_KERNEL)?;
        let names = f.len();
        f.extend_from_slice(NAMES, GFP_KERNEL)?;
        let shoff = f.len();
        f.resize(shoff + 5 * 64, 0, GFP_KERNEL)?;
        // (name offset, file offset, size) of sections 1..=4; section 0 is the null section.
        let sections = [
            (1u32, image, 256usize),
            (10, version, 8),
            (21, sig, 64),
            (40, names, NAMES.len()),
        ];
        for (i, &(name, off, size)) in sections.iter().enumerate() {
            let h = shoff + (i + 1) * 64;
            put32(&mut f, h, name);
            put32(&mut f, h + 4, 1);
            put64(&mut f, h + 24, off as u64);
            put64(&mut f, h + 32, size as u64);
        }
        put64(&mut f, 0x28, shoff as u64);
        f[0x3a] = 64;
        f[0x3c] = 5;
        f[0x3e] = 4;
        Ok((f, shoff))
    }

    /// The GSP image `f` validated for `version` and `chip`; what the tests compare.
    fn gsp_image(f: &[u8], version: FwVersion, chip: Chipset) -> Result<(usize, usize), FwError> {
        untrusted(f)
            .validate_ref_against::<GspImage<'_>, _>((version, chip))
            .map(|g| (g.image_offset, g.image.len()))
    }

    fn gsp_result(f: &[u8]) -> Result<(usize, usize), FwError> {
        gsp_image(f, FwVersion::R570_144, Chipset::GA102)
    }

    #[test]
    fn real_turing_570_files_validate() -> Result {
        for &kind in FileKind::needed_by(Chipset::TU102.family()) {
            let fw = request(Chipset::TU102, kind, FwVersion::R570_144)?;
            assert!(validate_file(
                kind,
                untrusted(fw.data()),
                FwVersion::R570_144,
                Chipset::TU102
            )
            .is_ok());
        }
        Ok(())
    }

    #[test]
    fn real_ampere_535_files_validate() -> Result {
        for &kind in FileKind::needed_by(Chipset::GA102.family()) {
            let fw = request(Chipset::GA102, kind, FwVersion::R535_113_01)?;
            let r = validate_file(
                kind,
                untrusted(fw.data()),
                FwVersion::R535_113_01,
                Chipset::GA102,
            );
            assert!(r.is_ok());
        }
        Ok(())
    }

    #[test]
    fn real_hopper_boot_files_validate() -> Result {
        for kind in [FileKind::Fmc, FileKind::Bootloader] {
            let fw = request(Chipset::GH100, kind, FwVersion::R570_144)?;
            let r = validate_file(
                kind,
                untrusted(fw.data()),
                FwVersion::R570_144,
                Chipset::GH100,
            );
            assert!(r.is_ok());
        }
        Ok(())
    }

    #[test]
    fn real_gsp_570_image_serves_every_family_it_signs() -> Result {
        let fw = request(Chipset::GA102, FileKind::Gsp, FwVersion::R570_144)?;
        for chip in [
            Chipset::GA102,
            Chipset::AD104,
            Chipset::GH100,
            Chipset::GB100,
            Chipset::GB207,
        ] {
            assert!(gsp_image(fw.data(), FwVersion::R570_144, chip).is_ok());
        }
        Ok(())
    }

    #[test]
    fn real_gsp_rejects_version_mismatch() -> Result {
        let fw = request(Chipset::GA102, FileKind::Gsp, FwVersion::R570_144)?;
        let r = gsp_image(fw.data(), FwVersion::R535_113_01, Chipset::GA102);
        assert_eq!(r, Err(FwError::VersionMismatch));
        Ok(())
    }

    #[test]
    fn real_gsp_rejects_other_family() -> Result {
        // The Turing image carries no Ampere signature.
        let fw = request(Chipset::TU102, FileKind::Gsp, FwVersion::R570_144)?;
        let r = gsp_image(fw.data(), FwVersion::R570_144, Chipset::GA102);
        assert_eq!(r, Err(FwError::MissingSection(".fwsignature_ga10x")));
        Ok(())
    }

    #[test]
    fn real_gsp_truncated_at_every_boundary() -> Result {
        let fw = request(Chipset::TU102, FileKind::Gsp, FwVersion::R570_144)?;
        let data = fw.data();
        let mut raw = [0u8; 8];
        raw.copy_from_slice(&data[0x28..0x30]);
        let shoff = usize::try_from(u64::from_le_bytes(raw))?;
        let cuts = [
            (0, FwError::Empty),
            (3, FwError::Truncated("ELF header")),
            (40, FwError::Truncated("ELF header")),
            (64, FwError::OutOfFile("section header table")),
            (shoff, FwError::OutOfFile("section header table")),
            (
                shoff + 64 * 3 + 5,
                FwError::OutOfFile("section header table"),
            ),
            (data.len() - 1, FwError::OutOfFile("section header table")),
        ];
        for (cut, expected) in cuts {
            let r = validate_file(
                FileKind::Gsp,
                untrusted(&data[..cut]),
                FwVersion::R570_144,
                Chipset::TU102,
            );
            assert_eq!(r, Err(expected));
        }
        Ok(())
    }

    #[test]
    fn real_bootloader_corruptions() -> Result {
        let fw = request(Chipset::GA102, FileKind::Bootloader, FwVersion::R570_144)?;
        let check = |f: &[u8]| untrusted(f).validate_ref::<BinFile>();

        let mut f = copy(fw.data())?;
        f[0] ^= 0xff;
        assert_eq!(check(&f), Err(FwError::BadMagic));

        let mut f = copy(fw.data())?;
        put32(&mut f, 16, 0xffff_fff0);
        assert_eq!(check(&f), Err(FwError::OutOfFile("data")));

        let mut f = copy(fw.data())?;
        put32(&mut f, 20, 0xffff_ffff);
        assert_eq!(check(&f), Err(FwError::OutOfFile("data")));

        let mut f = copy(fw.data())?;
        put32(&mut f, 12, 4);
        assert_eq!(
            check(&f),
            Err(FwError::Malformed("sub-header overlaps the binary header"))
        );

        assert_eq!(
            check(&fw.data()[..10]),
            Err(FwError::Truncated("binary header"))
        );
        assert_eq!(
            check(&fw.data()[..fw.data().len() - 1]),
            Err(FwError::OutOfFile("data"))
        );
        assert_eq!(
            validate_file(
                FileKind::Bootloader,
                untrusted(&[]),
                FwVersion::R570_144,
                Chipset::GA102
            ),
            Err(FwError::Empty)
        );
        Ok(())
    }

    #[test]
    fn synthetic_gsp_validates() -> Result {
        let (f, _) = synthetic_gsp()?;
        let img = untrusted(&f)
            .validate_ref_against::<GspImage<'_>, _>((FwVersion::R570_144, Chipset::GA102))
            .map_err(FwError::errno)?;
        assert_eq!((img.image_offset, img.image.len()), (64, 256));
        // Zero-copy: the validated sections are the file's own bytes.
        assert_eq!(img.image.as_ptr(), f[64..].as_ptr());
        assert_eq!(
            (img.signature_offset, img.signature.len()),
            (64 + 256 + 8, 64)
        );
        Ok(())
    }

    #[test]
    fn rejects_wrong_elf_magic() -> Result {
        let (mut f, _) = synthetic_gsp()?;
        f[1] = b'X';
        assert_eq!(gsp_result(&f), Err(FwError::BadMagic));
        Ok(())
    }

    #[test]
    fn rejects_section_outside_the_file() -> Result {
        let (mut f, shoff) = synthetic_gsp()?;
        let len = f.len() as u64;
        put64(&mut f, shoff + 64 + 24, len - 8);
        assert_eq!(gsp_result(&f), Err(FwError::OutOfFile("section")));
        Ok(())
    }

    #[test]
    fn rejects_huge_section_size() -> Result {
        let (mut f, shoff) = synthetic_gsp()?;
        put64(&mut f, shoff + 64 + 32, u64::MAX);
        assert_eq!(gsp_result(&f), Err(FwError::OutOfFile("section")));
        Ok(())
    }

    #[test]
    fn rejects_overlapping_sections() -> Result {
        let (mut f, shoff) = synthetic_gsp()?;
        // Move `.fwversion` into the middle of `.fwimage`.
        put64(&mut f, shoff + 2 * 64 + 24, 100);
        assert_eq!(gsp_result(&f), Err(FwError::Malformed("sections overlap")));
        Ok(())
    }

    #[test]
    fn rejects_unterminated_version() -> Result {
        let (mut f, _) = synthetic_gsp()?;
        // "570.144" followed by another digit instead of the NUL.
        f[64 + 256 + 7] = b'4';
        assert_eq!(gsp_result(&f), Err(FwError::VersionMismatch));
        Ok(())
    }

    #[test]
    fn rejects_other_version_string() -> Result {
        let (mut f, _) = synthetic_gsp()?;
        f[64 + 256..64 + 256 + 7].copy_from_slice(b"535.113");
        assert_eq!(gsp_result(&f), Err(FwError::VersionMismatch));
        Ok(())
    }

    #[test]
    fn rejects_missing_fwimage() -> Result {
        let (mut f, shoff) = synthetic_gsp()?;
        // Rename `.fwimage` to `.fwimagf`.
        let names = shoff - 51;
        f[names + 8] = b'f';
        assert_eq!(gsp_result(&f), Err(FwError::MissingSection(".fwimage")));
        Ok(())
    }

    #[test]
    fn rejects_unterminated_section_name() -> Result {
        let (mut f, shoff) = synthetic_gsp()?;
        // Point a name at the last byte of the name table, which is then not NUL.
        let last = shoff - 1;
        f[last] = b'x';
        assert_eq!(
            gsp_result(&f),
            Err(FwError::Malformed("section name not terminated"))
        );
        Ok(())
    }

    #[test]
    fn rejects_bad_section_table_shape() -> Result {
        let (mut f, _) = synthetic_gsp()?;
        f[0x3e] = 9;
        assert_eq!(
            gsp_result(&f),
            Err(FwError::Malformed("section name table index out of range"))
        );
        let (mut f, _) = synthetic_gsp()?;
        f[0x3a] = 40;
        assert_eq!(
            gsp_result(&f),
            Err(FwError::Malformed("unexpected section header size"))
        );
        let (mut f, _) = synthetic_gsp()?;
        f[0x3c] = 0;
        assert_eq!(
            gsp_result(&f),
            Err(FwError::Malformed("section count out of range"))
        );
        Ok(())
    }

    #[test]
    fn paths_are_named_as_in_linux_firmware() -> Result {
        let p = path(Chipset::GB202, FileKind::Fmc, FwVersion::R570_144)?;
        assert_eq!(p.to_bytes(), b"nvidia/gb202/gsp/fmc-570.144.bin");
        let p = path(
            Chipset::TU117,
            FileKind::BooterUnload,
            FwVersion::R535_113_01,
        )?;
        assert_eq!(
            p.to_bytes(),
            b"nvidia/tu117/gsp/booter_unload-535.113.01.bin"
        );
        assert!(!FwVersion::R535_113_01.supports(Chipset::GH100));
        assert!(FwVersion::R535_113_01.supports(Chipset::AD107));
        Ok(())
    }

    /// The `.modinfo` entries, built by [`ModInfoBuilder`] as `kernel::module_firmware!` builds
    /// them for the module: one for every file the probe may request, nothing else.
    #[test]
    fn modinfo_names_every_file() -> Result {
        const LEN: usize = ModInfoBuilder::<0>::create(c"").build_length();
        static MODINFO: [u8; LEN] = ModInfoBuilder::<LEN>::create(c"").build();
        let has = |entry: &[u8]| MODINFO.split(|&b| b == 0).any(|e| e == entry);

        let mut entries = 0;
        for entry in MODINFO.split(|&b| b == 0).filter(|e| !e.is_empty()) {
            let name = entry.strip_prefix(b"firmware=").ok_or(EINVAL)?;
            // A file the probe requests: a path() of a supported (chip, file, version), or the
            // generic bootloader of a chip that loads FWSEC through it.
            let mut requested = false;
            for &chipset in Chipset::ALL {
                let bl = CString::try_from_fmt(fmt!(
                    "nvidia/{}/gsp/{}-{}.bin",
                    chipset.name(),
                    GEN_BOOTLOADER,
                    GEN_BOOTLOADER_VERSION.name()
                ))?;
                let acr =
                    CString::try_from_fmt(fmt!("nvidia/{}/{}", chipset.name(), ACR_BOOTLOADER))?;
                requested |= needs_gen_bootloader(chipset)
                    && (bl.to_bytes() == name || acr.to_bytes() == name);
                for &version in FwVersion::ALL {
                    for &kind in FileKind::needed_by(chipset.family()) {
                        requested |= version.supports(chipset)
                            && path(chipset, kind, version)?.to_bytes() == name;
                    }
                }
            }
            assert!(requested);
            entries += 1;
        }
        // 16 Turing, Ampere and Ada chips with four files in two versions; 8 Hopper and
        // Blackwell chips with three files in 570.144 only; the generic bootloader of the five
        // Turing chips and GA100, under both its names.
        assert_eq!(entries, 16 * 4 * 2 + 8 * 3 + 6 * 2);
        assert!(has(b"firmware=nvidia/tu106/gsp/gen_bootloader-570.144.bin"));
        assert!(has(b"firmware=nvidia/ga100/acr/bl.bin"));
        assert!(!has(b"firmware=nvidia/ga102/acr/bl.bin"));
        assert!(!has(
            b"firmware=nvidia/ga102/gsp/gen_bootloader-570.144.bin"
        ));
        assert!(has(b"firmware=nvidia/gb202/gsp/fmc-570.144.bin"));
        assert!(has(
            b"firmware=nvidia/tu117/gsp/booter_unload-535.113.01.bin"
        ));
        assert!(has(b"firmware=nvidia/ad107/gsp/gsp-535.113.01.bin"));
        assert!(!has(b"firmware=nvidia/gh100/gsp/gsp-535.113.01.bin"));
        assert!(!has(b"firmware=nvidia/gh100/gsp/booter_load-570.144.bin"));
        Ok(())
    }
}
