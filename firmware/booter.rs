// SPDX-License-Identifier: GPL-2.0

//! The booter files (`booter_load-<version>.bin`, `booter_unload-<version>.bin`): the
//! heavy-secure (HS) ucode that SEC2 runs to load GSP-RM into WPR2 (Turing to Ada), and to take
//! it out again.
//!
//! The file, as NVIDIA ships it (all values little-endian; nouveau's `nvfw/hs.h` names the
//! structures):
//! - NVIDIA's binary header ([`BinFile`]): its data region is the ucode image, its sub-header
//!   the HS header;
//! - the HS header v2 (`nvfw_hs_header_v2`, nine words): the production signatures' offset and
//!   total size; the file offsets of three words: the signature's patch location (an offset in
//!   the image), the first signature's offset past the production signatures' start, the
//!   number of signatures; the signature parameters' offset and size (fuse version, engine id
//!   mask, ucode id: what the boot ROM checks the signature against); the load header's offset
//!   and size;
//! - the HS load header v2 (`nvfw_hs_load_header_v2`): the OS code's and OS data's offsets and
//!   sizes in the image, the number of applications, then per application its code's offset
//!   and size and its data's offset and size (only application 0 is loaded).
//!
//! The image is loaded with one of the signatures written at the patch location, which lies in
//! the OS data. Where its parts go depends on the chip family ([`BooterLayout`]):
//! - Turing and GA100 ([`BooterLayout::Tu102`]): the OS code (from the image's start, where
//!   every file has it) non-secure at IMEM `os_code.offset`, application 0's code secure at
//!   IMEM at its own offset, the OS data at DMEM 0; the falcon starts at the OS code; silicon
//!   in production mode has no fuse for the signature: the first one;
//! - GA102 and later ([`BooterLayout::Ga102`]): application 0's code secure at IMEM 0, the OS
//!   data at DMEM 0, the boot ROM told the signature's DMEM offset, the engine id mask and the
//!   ucode id; the falcon starts at application 0's image offset; the signature is the one
//!   the fuse selects ([`BooterImage::signature_index`]).
//!
//! [`BooterImage`] is the trusted result: every structure inside the file, every part inside
//! the image, the signature's place inside the OS data, the parts on 256-byte blocks (falcon DMA
//! transfers and IMEM tags) and inside the falcon's 64 KiB of IMEM and DMEM as the family loads
//! them. Each rejection is a [`BooterError`] naming the structure and its values.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use zerocopy::FromBytes;

use crate::{
    chip::Chipset,
    falcon::load::{
        BromParams,
        Segment,
        BLOCK, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

use super::{
    bin_hdr::BinFile,
    error::{
        BooterError,
        FwError,
        Part, //
    },
};

/// The falcon's IMEM and DMEM: 64 KiB each (SEC2, Turing to Ada).
const FALCON_MEMORY: u64 = 0x1_0000;

/// [`BLOCK`], for offsets and sizes taken as `u64`.
const BLOCK_BYTES: u64 = BLOCK as u64;

/// The ucode ids the fuse registers have (`UCODE1_VERSION` to `UCODE16_VERSION`).
const UCODE_IDS: core::ops::RangeInclusive<u32> = 1..=16;

/// The HS header v2 as stored in the file (`nvfw_hs_header_v2`).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct HsHeaderV2 {
    sig_prod_offset: u32,
    sig_prod_size: u32,
    /// File offset of the word holding the patch location.
    patch_loc: u32,
    /// File offset of the word holding the first signature's offset past `sig_prod_offset`.
    patch_sig: u32,
    meta_data_offset: u32,
    meta_data_size: u32,
    /// File offset of the word holding the number of signatures.
    num_sig: u32,
    header_offset: u32,
    header_size: u32,
}

/// The signature parameters (the HS header's `meta_data`).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct SignatureParams {
    fuse_version: u32,
    engine_id_mask: u32,
    ucode_id: u32,
}

/// The HS load header v2 up to its application table (`nvfw_hs_load_header_v2`).
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct LoadHeaderV2 {
    os_code_offset: u32,
    os_code_size: u32,
    os_data_offset: u32,
    os_data_size: u32,
    num_apps: u32,
}

/// One entry of the load header's application table.
#[repr(C)]
#[derive(Clone, Copy, zerocopy_derive::FromBytes)]
struct AppEntry {
    offset: u32,
    size: u32,
    data_offset: u32,
    data_size: u32,
}

const HS_HEADER_SIZE: u64 = core::mem::size_of::<HsHeaderV2>() as u64;
const PARAMS_SIZE: u64 = core::mem::size_of::<SignatureParams>() as u64;
const LOAD_HEADER_SIZE: u64 = core::mem::size_of::<LoadHeaderV2>() as u64;
const APP_ENTRY_SIZE: u64 = core::mem::size_of::<AppEntry>() as u64;

pub(crate) use crate::family::BooterLayout;

impl Part {
    /// The IMEM or DMEM the part takes from `dst`, in whole blocks: its end, 64-bit.
    fn end_in_memory(dst: u32, size: u32) -> u64 {
        u64::from(dst) + u64::from(size).next_multiple_of(BLOCK_BYTES)
    }
}

/// A validated booter file, borrowing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BooterImage<'a> {
    /// The ucode image (the binary header's data region), unsigned.
    pub(crate) image: &'a [u8],
    /// Where the image starts in the file.
    pub(crate) image_offset: usize,
    /// The production signatures, one after the other, each [`BooterImage::signature_size`]
    /// bytes; at least one.
    signatures: &'a [u8],
    /// Bytes of one signature (non-zero).
    pub(crate) signature_size: usize,
    /// The OS code: its IMEM offset on Turing and GA100 (its bytes are the image's first), its
    /// size.
    pub(crate) os_code: Part,
    /// The OS data, loaded at DMEM 0.
    pub(crate) os_data: Part,
    /// Application 0's code, the secure code.
    pub(crate) app0: Part,
    /// Where in the image (inside the OS data) the chosen signature is written.
    pub(crate) patch_loc: u32,
    /// The signature parameters.
    pub(crate) fuse_version: u32,
    pub(crate) engine_id_mask: u16,
    /// 1 to 16.
    pub(crate) ucode_id: u8,
    /// How the chip family loads it (what the checks of the falcon memories assumed).
    pub(crate) layout: BooterLayout,
}

/// The bytes `offset..offset + len` of `file`, or [`BooterError::OutOfFile`] naming `what`.
fn in_file<'a>(
    file: &'a [u8],
    what: &'static str,
    offset: u64,
    len: u64,
) -> Result<&'a [u8], BooterError> {
    let out = BooterError::OutOfFile {
        what,
        offset,
        len,
        file: file.len(),
    };
    let end = offset.checked_add(len).ok_or(out)?;
    let start = usize::try_from(offset).map_err(|_| out)?;
    let end = usize::try_from(end).map_err(|_| out)?;
    file.get(start..end).ok_or(out)
}

/// The `T` at `offset` of `file`, `len` bytes of which must lie in it (`len` at least `T`'s
/// size).
fn read_at<T: FromBytes>(
    file: &[u8],
    what: &'static str,
    offset: u64,
    len: u64,
) -> Result<T, BooterError> {
    let bytes = in_file(file, what, offset, len)?;
    T::read_from_prefix(bytes)
        .map(|(value, _)| value)
        .map_err(|_| BooterError::OutOfFile {
            what,
            offset,
            len,
            file: file.len(),
        })
}

/// The word at `offset` of `file`.
fn word_at(file: &[u8], what: &'static str, offset: u32) -> Result<u32, BooterError> {
    read_at::<u32>(file, what, offset.into(), 4)
}

/// `offset..offset + size` as a part of `image`, or [`BooterError::OutOfImage`].
fn in_image(image: &[u8], what: &'static str, offset: u32, size: u32) -> Result<Part, BooterError> {
    let end = u64::from(offset) + u64::from(size);
    match usize::try_from(end) {
        Ok(end) if end <= image.len() => Ok(Part { offset, size }),
        _ => Err(BooterError::OutOfImage {
            what,
            offset,
            size,
            image: image.len(),
        }),
    }
}

/// The declared region `offset..offset + size` must lie in the file and hold `needed` bytes.
fn declared(
    file: &[u8],
    what: &'static str,
    offset: u32,
    size: u32,
    needed: u64,
) -> Result<(), BooterError> {
    in_file(file, what, offset.into(), size.into())?;
    if u64::from(size) < needed {
        return Err(BooterError::TooSmall { what, size, needed });
    }
    Ok(())
}

/// Checks the booter structures of `file`, whose binary header `bin` validated, for `layout`.
fn parse(file: &[u8], bin: BinFile, layout: BooterLayout) -> Result<BooterImage<'_>, BooterError> {
    let image = in_file(
        file,
        "image",
        u64::try_from(bin.data_offset).unwrap_or(u64::MAX),
        u64::try_from(bin.data_size).unwrap_or(u64::MAX),
    )?;
    let hs: HsHeaderV2 = read_at(
        file,
        "HS header",
        u64::try_from(bin.header_offset).unwrap_or(u64::MAX),
        HS_HEADER_SIZE,
    )?;

    // The three words the HS header points at.
    let patch_loc = word_at(file, "patch location word", hs.patch_loc)?;
    let patch_sig = word_at(file, "signature offset word", hs.patch_sig)?;
    let num_sig = word_at(file, "signature count word", hs.num_sig)?;
    if num_sig == 0 {
        return Err(BooterError::NoSignatures);
    }
    if hs.sig_prod_size == 0 || hs.sig_prod_size % num_sig != 0 {
        return Err(BooterError::SignatureSize {
            size: hs.sig_prod_size,
            count: num_sig,
        });
    }
    // As NVIDIA's drivers read them: the signatures start `patch_sig` bytes into the
    // production signatures.
    let signatures = in_file(
        file,
        "signatures",
        u64::from(hs.sig_prod_offset) + u64::from(patch_sig),
        hs.sig_prod_size.into(),
    )?;
    let signature_size =
        usize::try_from(hs.sig_prod_size / num_sig).map_err(|_| BooterError::SignatureSize {
            size: hs.sig_prod_size,
            count: num_sig,
        })?;

    declared(
        file,
        "signature parameters",
        hs.meta_data_offset,
        hs.meta_data_size,
        PARAMS_SIZE,
    )?;
    let params: SignatureParams = read_at(
        file,
        "signature parameters",
        hs.meta_data_offset.into(),
        PARAMS_SIZE,
    )?;

    declared(
        file,
        "load header",
        hs.header_offset,
        hs.header_size,
        LOAD_HEADER_SIZE,
    )?;
    let load: LoadHeaderV2 = read_at(
        file,
        "load header",
        hs.header_offset.into(),
        LOAD_HEADER_SIZE,
    )?;
    if load.num_apps == 0 {
        return Err(BooterError::NoApps);
    }
    let table = LOAD_HEADER_SIZE + APP_ENTRY_SIZE * u64::from(load.num_apps);
    in_file(file, "application table", hs.header_offset.into(), table)?;
    if u64::from(hs.header_size) < table {
        return Err(BooterError::TooSmall {
            what: "load header",
            size: hs.header_size,
            needed: table,
        });
    }
    let app: AppEntry = read_at(
        file,
        "application table",
        u64::from(hs.header_offset) + LOAD_HEADER_SIZE,
        APP_ENTRY_SIZE,
    )?;

    let os_code = in_image(image, "OS code", load.os_code_offset, load.os_code_size)?;
    let os_data = in_image(image, "OS data", load.os_data_offset, load.os_data_size)?;
    let app0 = in_image(image, "application 0 code", app.offset, app.size)?;

    let patch_end = u64::from(patch_loc) + u64::try_from(signature_size).unwrap_or(u64::MAX);
    let data_end = u64::from(os_data.offset) + u64::from(os_data.size);
    if patch_loc < os_data.offset || patch_end > data_end {
        return Err(BooterError::PatchLocation {
            patch_loc,
            signature_size,
            data_offset: os_data.offset,
            data_size: os_data.size,
        });
    }

    let engine_id_mask = u16::try_from(params.engine_id_mask)
        .map_err(|_| BooterError::EngineIdMask(params.engine_id_mask))?;
    if !UCODE_IDS.contains(&params.ucode_id) {
        return Err(BooterError::UcodeId(params.ucode_id));
    }
    let ucode_id =
        u8::try_from(params.ucode_id).map_err(|_| BooterError::UcodeId(params.ucode_id))?;

    // The parts the falcon's DMA moves start on blocks in the image, and so do the IMEM
    // destinations (tagged per block): on Turing and GA100 the OS code's and application 0's
    // are their offsets, from GA102 on application 0 goes to 0.
    let turing = layout == BooterLayout::Tu102;
    let os_code_dst = turing.then_some(("OS code", os_code.offset));
    for (part, offset) in [
        ("application 0 code", app0.offset),
        ("OS data", os_data.offset),
    ]
    .into_iter()
    .chain(os_code_dst)
    {
        if u64::from(offset) % BLOCK_BYTES != 0 {
            return Err(BooterError::Unaligned { part, offset });
        }
    }

    // Each part, in whole blocks, inside the falcon's memory where the family loads it.
    let app0_dst = match layout {
        BooterLayout::Tu102 => app0.offset,
        BooterLayout::Ga102 => 0,
    };
    let os_code_load = turing.then_some(("OS code", os_code.offset, os_code.size));
    for (part, dst, len) in [
        ("application 0 code", app0_dst, app0.size),
        ("OS data", 0, os_data.size),
    ]
    .into_iter()
    .chain(os_code_load)
    {
        if Part::end_in_memory(dst, len) > FALCON_MEMORY {
            return Err(BooterError::PastMemory { part, dst, len });
        }
    }
    if turing && os_code.size != 0 && app0.size != 0 {
        let os_end = Part::end_in_memory(os_code.offset, os_code.size);
        let app_end = Part::end_in_memory(app0.offset, app0.size);
        if u64::from(os_code.offset) < app_end && u64::from(app0.offset) < os_end {
            return Err(BooterError::ImemOverlap { os_code, app0 });
        }
    }

    Ok(BooterImage {
        image,
        image_offset: bin.data_offset,
        signatures,
        signature_size,
        os_code,
        os_data,
        app0,
        patch_loc,
        fuse_version: params.fuse_version,
        engine_id_mask,
        ucode_id,
        layout,
    })
}

/// A booter file is validated for the chip it is loaded on: the family decides where its parts
/// go, hence which falcon memory limits apply.
impl<'a> Validator<(&'a Untrusted<[u8]>, Chipset)> for BooterImage<'a> {
    type Err = FwError;

    fn validate((file, chipset): (&'a [u8], Chipset)) -> Result<BooterImage<'a>, FwError> {
        let bin = <BinFile as Validator<&Untrusted<[u8]>>>::validate(file)?;
        let facts = chipset.family().booter().ok_or(FwError::Malformed(
            "a booter for a chip that does not boot through the booter",
        ))?;
        parse(file, bin, facts.booter).map_err(FwError::Booter)
    }
}

impl<'a> BooterImage<'a> {
    /// How many signatures the file has (at least one).
    pub(crate) fn signature_count(&self) -> usize {
        self.signatures
            .len()
            .checked_div(self.signature_size)
            .unwrap_or(0)
    }

    /// Signature `index`, or `None` past the last.
    pub(crate) fn signature(&self, index: usize) -> Option<&'a [u8]> {
        let start = index.checked_mul(self.signature_size)?;
        self.signatures
            .get(start..start.checked_add(self.signature_size)?)
    }

    /// Which signature to write: `fuse_reg` is the version the engine's fuse register
    /// (`NV_FUSE_OPT_FPF_<engine>_UCODE<ucode_id>_VERSION`) reads, its highest set bit counted
    /// from 1 (0 for none), or `None` where there is no such fuse (Turing and GA100: silicon in
    /// production mode takes the first signature). A fuse reading 0 takes the last signature,
    /// another version `v` the one at `fuse_version - v`.
    pub(crate) fn signature_index(&self, fuse_reg: Option<u32>) -> Result<usize, BooterError> {
        let count = self.signature_count();
        let index = match fuse_reg {
            None => Some(0),
            Some(0) => count.checked_sub(1),
            Some(v) => self
                .fuse_version
                .checked_sub(v)
                .and_then(|i| usize::try_from(i).ok()),
        };
        index
            .filter(|&i| i < count)
            .ok_or(BooterError::NoSignatureForFuse {
                fuse: fuse_reg,
                fuse_version: self.fuse_version,
                count,
            })
    }

    /// The OS code's load (Turing and GA100): from the image's start, non-secure, to IMEM
    /// `os_code.offset`.
    pub(crate) fn imem_ns(&self) -> Option<Segment> {
        match self.layout {
            BooterLayout::Tu102 => Some(Segment {
                src: 0,
                dst: self.os_code.offset,
                len: self.os_code.size,
            }),
            BooterLayout::Ga102 => None,
        }
    }

    /// Application 0's code, secure: to its own IMEM offset on Turing and GA100, to IMEM 0
    /// from GA102 on.
    pub(crate) fn imem_sec(&self) -> Segment {
        Segment {
            src: self.app0.offset,
            dst: match self.layout {
                BooterLayout::Tu102 => self.app0.offset,
                BooterLayout::Ga102 => 0,
            },
            len: self.app0.size,
        }
    }

    /// The OS data, signature patched in, to DMEM 0.
    pub(crate) fn dmem(&self) -> Segment {
        Segment {
            src: self.os_data.offset,
            dst: 0,
            len: self.os_data.size,
        }
    }

    /// Where the falcon starts.
    pub(crate) fn boot_addr(&self) -> u32 {
        match self.layout {
            BooterLayout::Tu102 => self.os_code.offset,
            BooterLayout::Ga102 => self.app0.offset,
        }
    }

    /// The boot ROM's parameters (GA102 and later): the signature's DMEM offset, the engine id
    /// mask and the ucode id.
    pub(crate) fn brom(&self) -> Option<BromParams> {
        match self.layout {
            BooterLayout::Tu102 => None,
            BooterLayout::Ga102 => Some(BromParams {
                // The validator placed the patch location inside the OS data.
                pkc_data_offset: self.patch_loc.saturating_sub(self.os_data.offset),
                engine_id_mask: self.engine_id_mask,
                ucode_id: self.ucode_id,
            }),
        }
    }
}

impl fmt::Display for BooterImage<'_> {
    /// What the driver found in the file (its debug-level log line).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "HS ucode {:#x} bytes at {:#x}, OS code {:#x}+{:#x}, app 0 {:#x}+{:#x}, OS data {:#x}+{:#x}, {} signatures of {:#x} bytes, patched at {:#x}, fuse version {}, engines {:#x}, ucode id {}, {} layout",
            self.image.len(),
            self.image_offset,
            self.os_code.offset,
            self.os_code.size,
            self.app0.offset,
            self.app0.size,
            self.os_data.offset,
            self.os_data.size,
            self.signature_count(),
            self.signature_size,
            self.patch_loc,
            self.fuse_version,
            self.engine_id_mask,
            self.ucode_id,
            match self.layout {
                BooterLayout::Tu102 => "TU102",
                BooterLayout::Ga102 => "GA102",
            }
        )
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_booter)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    /// Where the synthetic file keeps its structures: the binary header at 0, the HS header at
    /// `HS`, the three words at `WORDS`, the signature parameters at `META`, the load header at
    /// `LOAD`, two 16-byte signatures at `SIGS`, the image at `DATA`.
    const HS: usize = 0x40;
    const WORDS: usize = 0x80;
    const META: usize = 0x90;
    const LOAD: usize = 0xa0;
    const SIGS: usize = 0x100;
    const DATA: usize = 0x200;

    fn put(f: &mut [u8], at: usize, v: u32) {
        f[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// A booter file laid out as NVIDIA's, with an image of `image` bytes: OS code 0x100 bytes
    /// at 0, application 0's code 0x200 bytes at 0x100, OS data 0x300 bytes at 0x300 with the
    /// signature's place at 0x400; fuse version 2, engine mask 1, ucode id 3.
    fn file(image: u32, writes: &[(usize, u32)]) -> Result<KVec<u8>> {
        let mut f = KVec::new();
        f.resize(DATA + image as usize, 0u8, GFP_KERNEL)?;
        let len = f.len() as u32;
        let words: [(usize, &[u32]); 7] = [
            (0, &[0x10de, 1, len, HS as u32, DATA as u32, image]),
            (
                HS,
                &[
                    SIGS as u32,
                    32,
                    0x80,
                    0x84,
                    META as u32,
                    12,
                    0x88,
                    LOAD as u32,
                    36,
                ],
            ),
            (WORDS, &[0x400, 0, 2]),
            (META, &[2, 1, 3]),
            (LOAD, &[0, 0x100, 0x300, 0x300, 1, 0x100, 0x200, 0x100, 0]),
            (SIGS, &[0x5151_5151; 4]),
            (SIGS + 16, &[0x5252_5252; 4]),
        ];
        for (at, values) in words {
            for (i, &v) in values.iter().enumerate() {
                put(&mut f, at + 4 * i, v);
            }
        }
        for &(at, v) in writes {
            put(&mut f, at, v);
        }
        Ok(f)
    }

    fn check(f: &[u8], chipset: Chipset) -> Result<BooterImage<'_>, FwError> {
        Untrusted::new_untrusted_ref(f).validate_ref_against::<BooterImage<'_>, _>(chipset)
    }

    /// The booter error of the synthetic file with `writes`, on `chipset` (`None` if it is
    /// accepted or refused otherwise).
    fn refused(writes: &[(usize, u32)], chipset: Chipset) -> Result<Option<BooterError>> {
        let f = file(0x600, writes)?;
        Ok(match check(&f, chipset) {
            Err(FwError::Booter(e)) => Some(e),
            _ => None,
        })
    }

    /// Whether the synthetic file with `writes` is accepted on `chipset`.
    fn accepted(writes: &[(usize, u32)], chipset: Chipset) -> Result<bool> {
        let f = file(0x600, writes)?;
        Ok(check(&f, chipset).is_ok())
    }

    #[test]
    fn a_file_laid_out_as_nvidias_is_decoded() -> Result {
        let f = file(0x600, &[])?;
        let b = check(&f, Chipset::GA102).map_err(FwError::errno)?;
        assert_eq!((b.image_offset, b.image.len()), (DATA, 0x600));
        assert_eq!(b.image.as_ptr(), f[DATA..].as_ptr());
        assert_eq!((b.signature_count(), b.signature_size), (2, 16));
        assert_eq!(b.signature(1), Some(&f[SIGS + 16..SIGS + 32]));
        assert_eq!(b.signature(2), None);
        assert_eq!(
            b.os_code,
            Part {
                offset: 0,
                size: 0x100
            }
        );
        assert_eq!(
            b.app0,
            Part {
                offset: 0x100,
                size: 0x200
            }
        );
        assert_eq!(
            b.os_data,
            Part {
                offset: 0x300,
                size: 0x300
            }
        );
        assert_eq!(
            (b.patch_loc, b.fuse_version, b.engine_id_mask, b.ucode_id),
            (0x400, 2, 1, 3)
        );
        assert_eq!(b.imem_ns(), None);
        assert_eq!(
            b.imem_sec(),
            Segment {
                src: 0x100,
                dst: 0,
                len: 0x200
            }
        );
        assert_eq!(
            b.dmem(),
            Segment {
                src: 0x300,
                dst: 0,
                len: 0x300
            }
        );
        assert_eq!(b.boot_addr(), 0x100);
        assert_eq!(
            b.brom(),
            Some(BromParams {
                pkc_data_offset: 0x100,
                engine_id_mask: 1,
                ucode_id: 3
            })
        );
        Ok(())
    }

    #[test]
    fn turing_loads_the_os_code_at_its_offset_and_starts_there() -> Result {
        let f = file(0x600, &[])?;
        let b = check(&f, Chipset::TU102).map_err(FwError::errno)?;
        assert_eq!(b.layout, BooterLayout::Tu102);
        assert_eq!(
            b.imem_ns(),
            Some(Segment {
                src: 0,
                dst: 0,
                len: 0x100
            })
        );
        assert_eq!(b.imem_sec().dst, 0x100);
        assert_eq!((b.boot_addr(), b.brom()), (0, None));
        assert_eq!(
            Chipset::GA100.family().booter().map(|b| b.booter),
            Some(BooterLayout::Tu102)
        );
        Ok(())
    }

    #[test]
    fn structures_outside_the_file_are_refused() -> Result {
        assert_eq!(
            refused(&[(12, 0x7e0), (16, 0x7f0), (20, 0x10)], Chipset::GA102)?,
            Some(BooterError::OutOfFile {
                what: "HS header",
                offset: 0x7e0,
                len: 0x24,
                file: 0x800
            })
        );
        assert_eq!(
            refused(&[(HS + 24, 0x7fe)], Chipset::GA102)?,
            Some(BooterError::OutOfFile {
                what: "signature count word",
                offset: 0x7fe,
                len: 4,
                file: 0x800
            })
        );
        assert_eq!(
            refused(&[(WORDS + 4, 0x700)], Chipset::GA102)?,
            Some(BooterError::OutOfFile {
                what: "signatures",
                offset: 0x800,
                len: 0x20,
                file: 0x800
            })
        );
        assert_eq!(
            refused(&[(LOAD + 16, 0x1000_0000)], Chipset::GA102)?,
            Some(BooterError::OutOfFile {
                what: "application table",
                offset: LOAD as u64,
                len: 0x1_0000_0014,
                file: 0x800
            })
        );
        Ok(())
    }

    #[test]
    fn declared_regions_too_small_are_refused() -> Result {
        assert_eq!(
            refused(&[(HS + 20, 8)], Chipset::GA102)?,
            Some(BooterError::TooSmall {
                what: "signature parameters",
                size: 8,
                needed: 12
            })
        );
        assert_eq!(
            refused(&[(LOAD + 16, 2)], Chipset::GA102)?,
            Some(BooterError::TooSmall {
                what: "load header",
                size: 0x24,
                needed: 0x34
            })
        );
        Ok(())
    }

    #[test]
    fn no_signature_is_refused() -> Result {
        assert_eq!(
            refused(&[(WORDS + 8, 0)], Chipset::GA102)?,
            Some(BooterError::NoSignatures)
        );
        Ok(())
    }

    #[test]
    fn signatures_of_unequal_size_are_refused() -> Result {
        assert_eq!(
            refused(&[(WORDS + 8, 3)], Chipset::GA102)?,
            Some(BooterError::SignatureSize { size: 32, count: 3 })
        );
        Ok(())
    }

    #[test]
    fn parts_outside_the_image_are_refused() -> Result {
        assert_eq!(
            refused(&[(LOAD + 12, 0x301)], Chipset::GA102)?,
            Some(BooterError::OutOfImage {
                what: "OS data",
                offset: 0x300,
                size: 0x301,
                image: 0x600
            })
        );
        assert_eq!(
            refused(&[(LOAD + 20, u32::MAX)], Chipset::GA102)?,
            Some(BooterError::OutOfImage {
                what: "application 0 code",
                offset: u32::MAX,
                size: 0x200,
                image: 0x600
            })
        );
        Ok(())
    }

    #[test]
    fn a_patch_location_outside_the_os_data_is_refused() -> Result {
        for at in [0x2ff, 0x5f1] {
            assert_eq!(
                refused(&[(WORDS, at)], Chipset::GA102)?,
                Some(BooterError::PatchLocation {
                    patch_loc: at,
                    signature_size: 16,
                    data_offset: 0x300,
                    data_size: 0x300
                })
            );
        }
        Ok(())
    }

    #[test]
    fn no_application_is_refused() -> Result {
        assert_eq!(
            refused(&[(LOAD + 16, 0)], Chipset::GA102)?,
            Some(BooterError::NoApps)
        );
        Ok(())
    }

    #[test]
    fn boot_rom_parameters_out_of_range_are_refused() -> Result {
        assert_eq!(
            refused(&[(META + 4, 0x1_0000)], Chipset::GA102)?,
            Some(BooterError::EngineIdMask(0x1_0000))
        );
        for id in [0, 17, 0x100] {
            assert_eq!(
                refused(&[(META + 8, id)], Chipset::GA102)?,
                Some(BooterError::UcodeId(id))
            );
        }
        Ok(())
    }

    #[test]
    fn parts_off_the_256_byte_blocks_are_refused() -> Result {
        assert_eq!(
            refused(&[(LOAD + 20, 0x180)], Chipset::GA102)?,
            Some(BooterError::Unaligned {
                part: "application 0 code",
                offset: 0x180
            })
        );
        // Only Turing loads the OS code, at its offset.
        assert_eq!(
            refused(&[(LOAD, 0x80)], Chipset::TU102)?,
            Some(BooterError::Unaligned {
                part: "OS code",
                offset: 0x80
            })
        );
        assert!(accepted(&[(LOAD, 0x80)], Chipset::GA102)?);
        Ok(())
    }

    #[test]
    fn parts_past_the_falcon_memories_are_refused() -> Result {
        let f = file(0x10800, &[(LOAD + 12, 0x10100)])?;
        assert_eq!(
            check(&f, Chipset::GA102).err(),
            Some(FwError::Booter(BooterError::PastMemory {
                part: "OS data",
                dst: 0,
                len: 0x10100
            }))
        );
        // Turing loads application 0 at its offset: the last block and one more do not fit.
        let f = file(0x10800, &[(LOAD + 20, 0xff00)])?;
        assert_eq!(
            check(&f, Chipset::TU102).err(),
            Some(FwError::Booter(BooterError::PastMemory {
                part: "application 0 code",
                dst: 0xff00,
                len: 0x200
            }))
        );
        assert!(check(&f, Chipset::GA102).is_ok());
        Ok(())
    }

    #[test]
    fn turing_os_code_over_application_0_is_refused() -> Result {
        assert_eq!(
            refused(&[(LOAD + 4, 0x200)], Chipset::TU102)?,
            Some(BooterError::ImemOverlap {
                os_code: Part {
                    offset: 0,
                    size: 0x200
                },
                app0: Part {
                    offset: 0x100,
                    size: 0x200
                }
            })
        );
        assert!(accepted(&[(LOAD + 4, 0x200)], Chipset::GA102)?);
        Ok(())
    }

    #[test]
    fn the_fuse_selects_the_signature() -> Result {
        let f = file(0x600, &[])?;
        let b = check(&f, Chipset::GA102).map_err(FwError::errno)?;
        // No fuse: the first; a fuse reading 0: the last; version v: fuse_version - v.
        assert_eq!(b.signature_index(None), Ok(0));
        assert_eq!(b.signature_index(Some(0)), Ok(1));
        assert_eq!(b.signature_index(Some(2)), Ok(0));
        assert_eq!(b.signature_index(Some(1)), Ok(1));
        assert_eq!(
            b.signature_index(Some(3)),
            Err(BooterError::NoSignatureForFuse {
                fuse: Some(3),
                fuse_version: 2,
                count: 2
            })
        );
        let f = file(0x600, &[(META, 5)])?;
        let b = check(&f, Chipset::GA102).map_err(FwError::errno)?;
        assert_eq!(
            b.signature_index(Some(1)),
            Err(BooterError::NoSignatureForFuse {
                fuse: Some(1),
                fuse_version: 5,
                count: 2
            })
        );
        Ok(())
    }
}
