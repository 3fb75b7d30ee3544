// SPDX-License-Identifier: GPL-2.0

//! The Booter files (`booter_load-<version>.bin`, `booter_unload-<version>.bin`): a binary
//! header whose sub-header is the HS header v2 (`nvfw_hs_header_v2` in nouveau), which points
//! at the production signatures, at three words (patch location, signatures' extra offset,
//! signature count), at the signature parameters (fuse version, engine id mask, ucode id) and
//! at the HS load header v2 (`nvfw_hs_load_header_v2`: the OS code and data and the
//! applications, as offsets into the data region).

use std::ops::Range;

use super::{
    bin_hdr::BinFile,
    region,
    sub_region,
    word,
    words,
    Invalid, //
};

/// A parsed Booter file: the fields nova-core's Booter TLV carries. Offsets are into the data
/// region (the ucode image), as nova-core uses them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Booter {
    /// The ucode image.
    pub data: Range<usize>,
    pub os_code_offset: u32,
    pub os_code_size: u32,
    pub os_data_offset: u32,
    pub os_data_size: u32,
    pub app0_code_offset: u32,
    pub app0_code_size: u32,
    /// Where in the image the chosen signature is written.
    pub patch_loc: u32,
    pub fuse_version: u32,
    pub engine_id_mask: u32,
    pub ucode_id: u32,
    pub num_sigs: u32,
    /// The production signatures, `num_sigs` of the same size, in the file.
    pub signatures: Range<usize>,
}

/// Size of the load header before its application entries (five words).
const LOAD_HEADER: u64 = 20;

/// Size of one application entry of the load header (four words).
const APP_ENTRY: u64 = 16;

impl Booter {
    /// Parses a Booter file.
    pub fn parse(file: &[u8]) -> Result<Booter, Invalid> {
        let bin = BinFile::parse(file)?;
        // The HS header's words: the production signatures' offset and size, where the words
        // of the patch location and of the signatures' extra offset are, the signature
        // parameters' offset and size, where the signature count's word is, the load header's
        // offset and size. (Indexing a fixed-size array with constants: checked when
        // compiling.)
        let hs = words::<9>(file, bin.header_offset, "HS header")?;
        let (sig_prod_offset, sig_prod_size) = (hs[0], hs[1]);
        let (patch_loc_at, patch_sig_at) = (hs[2], hs[3]);
        let (meta_offset, meta_size) = (hs[4], hs[5]);
        let num_sig_at = hs[6];
        let (load_offset, load_size) = (hs[7], hs[8]);

        if meta_size < 12 {
            return Err(Invalid::BadValue {
                what: "signature parameters size".into(),
                value: meta_size.into(),
                why: "too small for the fuse version, engine id mask and ucode id",
            });
        }
        let [fuse_version, engine_id_mask, ucode_id] =
            words::<3>(file, meta_offset.into(), "signature parameters")?;
        let patch_loc = word(file, patch_loc_at.into(), "patch location")?;
        let patch_sig = word(file, patch_sig_at.into(), "signatures' offset")?;
        let num_sigs = word(file, num_sig_at.into(), "signature count")?;

        if num_sigs == 0 {
            return Err(Invalid::BadValue {
                what: "signature count".into(),
                value: 0,
                why: "Booter is always signed",
            });
        }
        if sig_prod_size == 0 || sig_prod_size % num_sigs != 0 {
            return Err(Invalid::BadValue {
                what: "signatures size".into(),
                value: sig_prod_size.into(),
                why: "not a non-zero multiple of the signature count",
            });
        }
        // As nouveau reads them: the signatures start `patch_sig` bytes into the production
        // signatures' area.
        let signatures = region(
            u64::from(sig_prod_offset) + u64::from(patch_sig),
            sig_prod_size.into(),
            file.len(),
            "signatures",
            "file",
        )?;

        let [os_code_offset, os_code_size, os_data_offset, os_data_size, num_apps] =
            words::<5>(file, load_offset.into(), "HS load header")?;
        if num_apps == 0 {
            return Err(Invalid::BadValue {
                what: "application count".into(),
                value: 0,
                why: "the secure code is application 0's",
            });
        }
        if u64::from(load_size) < LOAD_HEADER + APP_ENTRY * u64::from(num_apps) {
            return Err(Invalid::BadValue {
                what: "HS load header size".into(),
                value: load_size.into(),
                why: "too small for its application entries",
            });
        }
        let [app0_code_offset, app0_code_size, _, _] = words::<4>(
            file,
            u64::from(load_offset) + LOAD_HEADER,
            "application 0 entry",
        )?;

        let image = &bin.data;
        sub_region(
            image,
            os_code_offset.into(),
            os_code_size.into(),
            "OS code",
            "data region",
        )?;
        sub_region(
            image,
            os_data_offset.into(),
            os_data_size.into(),
            "OS data",
            "data region",
        )?;
        sub_region(
            image,
            app0_code_offset.into(),
            app0_code_size.into(),
            "application 0 code",
            "data region",
        )?;
        // nouveau loads application 0's code from right after the OS code, nova-core from
        // application 0's offset: the two agree only if they are the same.
        if app0_code_offset != os_code_size {
            return Err(Invalid::BadValue {
                what: "application 0 code offset".into(),
                value: app0_code_offset.into(),
                why: "does not follow the OS code",
            });
        }
        // nova-core gives the falcon the signature's place relative to the OS data, and
        // patches one signature into the image there.
        if patch_loc < os_data_offset {
            return Err(Invalid::BadValue {
                what: "patch location".into(),
                value: patch_loc.into(),
                why: "lies before the OS data",
            });
        }
        sub_region(
            image,
            patch_loc.into(),
            (sig_prod_size / num_sigs).into(),
            "signature patch",
            "data region",
        )?;
        if engine_id_mask > u32::from(u16::MAX) {
            return Err(Invalid::BadValue {
                what: "engine id mask".into(),
                value: engine_id_mask.into(),
                why: "wider than 16 bits",
            });
        }
        if ucode_id > u32::from(u8::MAX) {
            return Err(Invalid::BadValue {
                what: "ucode id".into(),
                value: ucode_id.into(),
                why: "wider than 8 bits",
            });
        }
        Ok(Booter {
            data: bin.data,
            os_code_offset,
            os_code_size,
            os_data_offset,
            os_data_size,
            app0_code_offset,
            app0_code_size,
            patch_loc,
            fuse_version,
            engine_id_mask,
            ucode_id,
            num_sigs,
            signatures,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{
        booter::*,
        booter_file,
        put32, //
    };

    fn with(at: usize, value: u32) -> Result<Booter, Invalid> {
        let mut f = booter_file();
        put32(&mut f, at, value);
        Booter::parse(&f)
    }

    fn bad_value(r: Result<Booter, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::BadValue { what, .. }) if what == field)
    }

    fn out_of_range(r: Result<Booter, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::OutOfRange { what, .. }) if what == field)
    }

    fn truncated(r: Result<Booter, Invalid>, field: &str) -> bool {
        matches!(r, Err(Invalid::Truncated { what, .. }) if what == field)
    }

    #[test]
    fn parses_a_good_file() {
        let b = Booter::parse(&booter_file()).expect("parse");
        assert_eq!(b.data, DATA..DATA + 0x300);
        assert_eq!((b.os_code_offset, b.os_code_size), (0, 0x100));
        assert_eq!((b.os_data_offset, b.os_data_size), (0x200, 0x100));
        assert_eq!((b.app0_code_offset, b.app0_code_size), (0x100, 0x100));
        assert_eq!(b.patch_loc, 0x210);
        assert_eq!((b.fuse_version, b.engine_id_mask, b.ucode_id), (2, 1, 3));
        assert_eq!(b.num_sigs, 2);
        assert_eq!(b.signatures, SIGS..SIGS + 0x20);
    }

    #[test]
    fn rejects_hs_header_outside_the_file() {
        assert!(truncated(with(12, 0x3f0), "HS header"));
    }

    #[test]
    fn rejects_patch_location_word_outside_the_file() {
        assert!(truncated(with(HS + 8, 0x400), "patch location"));
    }

    #[test]
    fn rejects_signature_count_word_outside_the_file() {
        assert!(truncated(with(HS + 24, 0x3fe), "signature count"));
    }

    #[test]
    fn rejects_short_signature_parameters() {
        assert!(bad_value(with(HS + 20, 8), "signature parameters size"));
    }

    #[test]
    fn rejects_signature_parameters_outside_the_file() {
        assert!(truncated(with(HS + 16, 0x3f8), "signature parameters"));
    }

    #[test]
    fn rejects_zero_signatures() {
        assert!(bad_value(with(NSIG_AT, 0), "signature count"));
    }

    #[test]
    fn rejects_signatures_not_a_multiple_of_the_count() {
        assert!(bad_value(with(NSIG_AT, 3), "signatures size"));
    }

    #[test]
    fn rejects_signatures_outside_the_file() {
        assert!(out_of_range(with(HS, 0x3f0), "signatures"));
        assert!(out_of_range(with(PSIG_AT, u32::MAX), "signatures"));
    }

    #[test]
    fn rejects_load_header_outside_the_file() {
        assert!(truncated(with(HS + 28, 0x3f0), "HS load header"));
    }

    #[test]
    fn rejects_zero_applications() {
        assert!(bad_value(with(LOAD + 16, 0), "application count"));
    }

    #[test]
    fn rejects_load_header_too_small_for_its_applications() {
        assert!(bad_value(with(LOAD + 16, 2), "HS load header size"));
    }

    #[test]
    fn rejects_os_code_outside_the_data() {
        assert!(out_of_range(with(LOAD + 4, 0x301), "OS code"));
    }

    #[test]
    fn rejects_os_data_outside_the_data() {
        assert!(out_of_range(with(LOAD + 8, 0x280), "OS data"));
    }

    #[test]
    fn rejects_application_code_outside_the_data() {
        assert!(out_of_range(with(LOAD + 24, 0x201), "application 0 code"));
    }

    #[test]
    fn rejects_application_code_not_after_the_os_code() {
        assert!(bad_value(
            with(LOAD + 20, 0x180),
            "application 0 code offset"
        ));
    }

    #[test]
    fn rejects_patch_location_before_the_os_data() {
        assert!(bad_value(with(PLOC_AT, 0x1f0), "patch location"));
    }

    #[test]
    fn rejects_patch_past_the_data() {
        assert!(out_of_range(with(PLOC_AT, 0x2f8), "signature patch"));
    }

    #[test]
    fn rejects_wide_engine_id_mask() {
        assert!(bad_value(with(META + 4, 0x1_0000), "engine id mask"));
    }

    #[test]
    fn rejects_wide_ucode_id() {
        assert!(bad_value(with(META + 8, 0x100), "ucode id"));
    }
}
