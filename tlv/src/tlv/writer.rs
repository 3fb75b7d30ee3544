// SPDX-License-Identifier: GPL-2.0

//! Writing a TLV file: blocks appended one by one, each checked as it comes, and the file's
//! own rules (`VERS`, the image as `BLOB` or `FILE` + `SIZE`) checked when it is finished.

use std::ops::Range;

use super::{
    valid_string,
    valid_tag,
    TlvError,
    BLOCK_HEADER,
    MAGIC, //
};

/// A TLV file being written.
pub struct Writer {
    /// The file so far.
    out: Vec<u8>,
    /// Every tag written, with where its value lies in `out`.
    blocks: Vec<([u8; 4], Range<usize>)>,
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

impl Writer {
    /// An empty file: the magic only.
    pub fn new() -> Writer {
        Writer {
            out: MAGIC.to_vec(),
            blocks: Vec::new(),
        }
    }

    /// Appends a byte-array value.
    pub fn bytes(&mut self, tag: &[u8; 4], value: &[u8]) -> Result<(), TlvError> {
        if !valid_tag(tag) {
            return Err(TlvError::BadTag(*tag));
        }
        if self.blocks.iter().any(|(t, _)| t == tag) {
            return Err(TlvError::DuplicateTag(*tag));
        }
        if value.is_empty() {
            return Err(TlvError::EmptyValue(*tag));
        }
        let len = u32::try_from(value.len()).map_err(|_| TlvError::TooLong(*tag, value.len()))?;
        self.out.reserve(BLOCK_HEADER + value.len() + 3);
        self.out.extend_from_slice(tag);
        self.out.extend_from_slice(&len.to_le_bytes());
        let start = self.out.len();
        self.out.extend_from_slice(value);
        let end = self.out.len();
        // The length field says the value's own length; the padding only aligns the next block.
        self.out.resize(end.next_multiple_of(4), 0);
        self.blocks.push((*tag, start..end));
        Ok(())
    }

    /// Appends a 32-bit little-endian integer value.
    pub fn u32(&mut self, tag: &[u8; 4], value: u32) -> Result<(), TlvError> {
        self.bytes(tag, &value.to_le_bytes())
    }

    /// Appends a string value: printable ASCII, written without a terminating NUL.
    pub fn string(&mut self, tag: &[u8; 4], value: &str) -> Result<(), TlvError> {
        if !value.is_empty() && !valid_string(value.as_bytes()) {
            return Err(TlvError::NotPrintable(*tag));
        }
        self.bytes(tag, value.as_bytes())
    }

    /// The value written for `tag`, if any.
    fn value(&self, tag: &[u8; 4]) -> Option<&[u8]> {
        self.blocks
            .iter()
            .find(|(t, _)| t == tag)
            .and_then(|(_, r)| self.out.get(r.clone()))
    }

    /// The finished file, once the rules every TLV file follows hold: a `VERS` tag, and the
    /// image either inline (`BLOB`) or in a companion file of the same folder (`FILE` with
    /// `SIZE`).
    pub fn finish(self) -> Result<Vec<u8>, TlvError> {
        if self.value(b"VERS").is_none() {
            return Err(TlvError::NoVersion);
        }
        let blob = self.value(b"BLOB").is_some();
        let file = self.value(b"FILE");
        let size = self.value(b"SIZE").is_some();
        match (blob, file) {
            (false, None) => return Err(TlvError::NoImage),
            (true, Some(_)) => return Err(TlvError::BlobAndFile),
            _ => {}
        }
        if file.is_some() != size {
            return Err(TlvError::FileWithoutSize);
        }
        if let Some(name) = file {
            if name.contains(&b'/') || name == b"." || name == b".." {
                return Err(TlvError::PathInFile);
            }
        }
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(build: impl FnOnce(&mut Writer) -> Result<(), TlvError>) -> Vec<u8> {
        let mut w = Writer::new();
        build(&mut w).expect("blocks");
        w.finish().expect("finish")
    }

    #[test]
    fn starts_with_the_magic() {
        let f = finished(|w| {
            w.string(b"VERS", "570.144")?;
            w.bytes(b"BLOB", &[1])
        });
        assert_eq!(&f[..4], b"NVFW");
    }

    #[test]
    fn pads_values_to_four_bytes_with_zeros() {
        let f = finished(|w| {
            w.string(b"VERS", "57")?;
            w.bytes(b"BLOB", &[0xaa; 5])
        });
        // NVFW, VERS block (8 + 2 + 2 padding), BLOB block (8 + 5 + 3 padding).
        assert_eq!(f.len(), 4 + 12 + 16);
        assert_eq!(&f[14..16], &[0, 0]);
        assert_eq!(&f[24..29], &[0xaa; 5]);
        assert_eq!(&f[29..32], &[0, 0, 0]);
    }

    #[test]
    fn length_field_is_the_unpadded_length() {
        let f = finished(|w| {
            w.string(b"VERS", "570.144")?;
            w.bytes(b"BLOB", &[1; 3])
        });
        assert_eq!(&f[4..8], b"VERS");
        assert_eq!(&f[8..12], &7u32.to_le_bytes());
        assert_eq!(&f[20..24], b"BLOB");
        assert_eq!(&f[24..28], &3u32.to_le_bytes());
    }

    #[test]
    fn writes_u32_little_endian() {
        let f = finished(|w| {
            w.string(b"VERS", "1")?;
            w.u32(b"CDSZ", 0x1234_5678)?;
            w.bytes(b"BLOB", &[1])
        });
        // NVFW, then VERS "1" in 8 + 4 bytes.
        assert_eq!(&f[16..24], b"CDSZ\x04\0\0\0");
        assert_eq!(&f[24..28], &[0x78, 0x56, 0x34, 0x12]);
    }

    #[test]
    fn rejects_lower_case_tag() {
        assert_eq!(
            Writer::new().u32(b"vers", 1),
            Err(TlvError::BadTag(*b"vers"))
        );
    }

    #[test]
    fn rejects_tag_with_space_or_non_ascii() {
        assert_eq!(
            Writer::new().u32(b"VE S", 1),
            Err(TlvError::BadTag(*b"VE S"))
        );
        assert_eq!(
            Writer::new().u32(b"VER\xc9", 1),
            Err(TlvError::BadTag(*b"VER\xc9"))
        );
    }

    #[test]
    fn accepts_digits_in_tags() {
        assert_eq!(Writer::new().u32(b"A0CO", 1), Ok(()));
    }

    #[test]
    fn rejects_duplicate_tag() {
        let mut w = Writer::new();
        w.u32(b"CDOF", 1).expect("first");
        assert_eq!(w.u32(b"CDOF", 2), Err(TlvError::DuplicateTag(*b"CDOF")));
    }

    #[test]
    fn rejects_empty_value() {
        assert_eq!(
            Writer::new().bytes(b"SIGN", &[]),
            Err(TlvError::EmptyValue(*b"SIGN"))
        );
        assert_eq!(
            Writer::new().string(b"VERS", ""),
            Err(TlvError::EmptyValue(*b"VERS"))
        );
    }

    #[test]
    fn rejects_unprintable_string() {
        assert_eq!(
            Writer::new().string(b"VERS", "570\0"),
            Err(TlvError::NotPrintable(*b"VERS"))
        );
        assert_eq!(
            Writer::new().string(b"VERS", "5\u{e9}"),
            Err(TlvError::NotPrintable(*b"VERS"))
        );
    }

    #[test]
    fn rejects_file_without_version() {
        let mut w = Writer::new();
        w.bytes(b"BLOB", &[1]).expect("blob");
        assert_eq!(w.finish(), Err(TlvError::NoVersion));
    }

    #[test]
    fn rejects_file_without_image() {
        let mut w = Writer::new();
        w.string(b"VERS", "1").expect("vers");
        assert_eq!(w.finish(), Err(TlvError::NoImage));
    }

    #[test]
    fn rejects_blob_and_file_together() {
        let mut w = Writer::new();
        w.string(b"VERS", "1").expect("vers");
        w.bytes(b"BLOB", &[1]).expect("blob");
        w.string(b"FILE", "gsp.bin").expect("file");
        w.u32(b"SIZE", 1).expect("size");
        assert_eq!(w.finish(), Err(TlvError::BlobAndFile));
    }

    #[test]
    fn rejects_file_without_size() {
        let mut w = Writer::new();
        w.string(b"VERS", "1").expect("vers");
        w.string(b"FILE", "gsp.bin").expect("file");
        assert_eq!(w.finish(), Err(TlvError::FileWithoutSize));
    }

    #[test]
    fn rejects_path_in_file() {
        let mut w = Writer::new();
        w.string(b"VERS", "1").expect("vers");
        w.string(b"FILE", "../gsp.bin").expect("file");
        w.u32(b"SIZE", 1).expect("size");
        assert_eq!(w.finish(), Err(TlvError::PathInFile));
    }
}
