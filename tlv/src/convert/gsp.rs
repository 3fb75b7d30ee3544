// SPDX-License-Identifier: GPL-2.0

//! `gsp.tlv` and its companion file, from `gsp-<version>.bin`. nova-core's `firmware/gsp.rs`
//! reads `VERS`, `SIZE`, `FILE` and `SIGN`, then loads the companion file `FILE` names from the
//! TLV's own folder.
//!
//! | tag  | from |
//! |------|------|
//! | SIGN | the ELF section `.fwsignature_<family>` of the chip |
//! | SIZE | the size of the ELF section `.fwimage` (= the companion file's size) |
//! | FILE | the companion file's name, [`COMPANION`]; it holds `.fwimage`'s bytes |
//! | BLID | the descriptor of the `.note.gnu.build-id` note, as lower-case hex (if present) |
//!
//! The version converted must be the one `.fwversion` gives.

use crate::{
    error::Problem,
    hex::hex,
    package::{
        gsp_image::GspImage,
        len64,
        Invalid, //
    },
    tlv::Writer,
};

use super::{
    bytes,
    Output, //
};

/// The companion file's name: the name nova-core's `.modinfo` lists (`nvidia/<chip>/gsp/gsp.bin`),
/// so tools that gather a module's firmware (initramfs generators) find it.
pub const COMPANION: &str = "gsp.bin";

/// `gsp.tlv` and its companion file, from the GSP-RM image `file`, with the signature section
/// `signature` (the chip family's).
pub(super) fn convert(file: &[u8], version: &str, signature: &str) -> Result<Vec<Output>, Problem> {
    let g = GspImage::parse(file, signature)?;
    if g.version != version {
        return Err(Invalid::VersionMismatch {
            found: g.version,
            expected: version.to_string(),
        }
        .into());
    }
    let image = bytes(file, g.fwimage);
    let size = u32::try_from(image.len()).map_err(|_| Invalid::BadValue {
        what: ".fwimage size".into(),
        value: len64(image.len()),
        why: "does not fit the 32-bit SIZE tag",
    })?;
    let mut w = Writer::new();
    w.string(b"VERS", version)?;
    w.bytes(b"SIGN", bytes(file, g.signature))?;
    w.u32(b"SIZE", size)?;
    w.string(b"FILE", COMPANION)?;
    if let Some(id) = g.build_id {
        w.string(b"BLID", &hex(bytes(file, id)))?;
    }
    Ok(vec![
        Output {
            name: "gsp.tlv".into(),
            bytes: w.finish()?,
        },
        Output {
            name: COMPANION.into(),
            bytes: image.to_vec(),
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        package::elf::Class,
        testing::{
            elf,
            Sec, //
        },
        tlv::Tlv,
    };

    fn image(version: &[u8]) -> Vec<u8> {
        let note = [
            4, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, b'G', b'N', b'U', 0, 0xab, 0x01,
        ];
        elf(
            Class::Elf64,
            &[
                Sec {
                    name: ".fwimage",
                    kind: 1,
                    info: 0,
                    data: &[0xaa; 100],
                },
                Sec {
                    name: ".fwversion",
                    kind: 1,
                    info: 0,
                    data: version,
                },
                Sec {
                    name: ".fwsignature_ad10x",
                    kind: 1,
                    info: 0,
                    data: &[0x5a; 32],
                },
                Sec {
                    name: ".note.gnu.build-id",
                    kind: 7,
                    info: 0,
                    data: &note,
                },
            ],
        )
    }

    #[test]
    fn maps_the_sections_to_tags_and_the_companion() {
        let f = image(b"570.144\0");
        let out = convert(&f, "570.144", ".fwsignature_ad10x").expect("convert");
        assert_eq!(out[1].name, "gsp.bin");
        assert_eq!(out[1].bytes, [0xaa; 100]);
        let t = Tlv::parse(&out[0].bytes).expect("parse");
        assert_eq!(t.get(b"SIGN"), Some(&[0x5a; 32][..]));
        assert_eq!(t.u32(b"SIZE"), Some(100));
        assert_eq!(t.string(b"FILE"), Some("gsp.bin"));
        assert_eq!(t.string(b"BLID"), Some("ab01"));
    }

    #[test]
    fn rejects_another_version() {
        let f = image(b"535.113.01\0");
        assert!(matches!(
            convert(&f, "570.144", ".fwsignature_ad10x"),
            Err(Problem::Invalid(Invalid::VersionMismatch { .. }))
        ));
    }
}
