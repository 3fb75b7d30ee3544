// SPDX-License-Identifier: GPL-2.0

//! Reading a TLV file back: every block walked and checked once, in [`Tlv::parse`], as strictly
//! as the format's description (so a file this reader takes is one nova-core takes).

use super::{
    valid_string,
    valid_tag,
    TlvError,
    BLOCK_HEADER,
    MAGIC, //
};

/// One block of a TLV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<'a> {
    pub tag: [u8; 4],
    /// The value, without its padding.
    pub value: &'a [u8],
}

/// A parsed TLV file: its blocks, in file order.
#[derive(Debug)]
pub struct Tlv<'a> {
    blocks: Vec<Block<'a>>,
}

impl<'a> Tlv<'a> {
    /// Parses `file`: the magic, then blocks that fill the rest of the file exactly, each with a
    /// valid tag seen once and zero padding, and a `VERS` tag among them.
    pub fn parse(file: &'a [u8]) -> Result<Tlv<'a>, TlvError> {
        let mut rest = file.strip_prefix(MAGIC).ok_or(TlvError::BadMagic)?;
        let mut at = MAGIC.len();
        let mut blocks: Vec<Block<'a>> = Vec::new();
        while !rest.is_empty() {
            let (header, after) = rest
                .split_at_checked(BLOCK_HEADER)
                .ok_or(TlvError::Truncated(at))?;
            let (tag, len) = header.split_at(4);
            let tag = <[u8; 4]>::try_from(tag).map_err(|_| TlvError::Truncated(at))?;
            let len = <[u8; 4]>::try_from(len).map_err(|_| TlvError::Truncated(at))?;
            let len =
                usize::try_from(u32::from_le_bytes(len)).map_err(|_| TlvError::Truncated(at))?;
            if !valid_tag(&tag) {
                return Err(TlvError::BadTag(tag));
            }
            if blocks.iter().any(|b| b.tag == tag) {
                return Err(TlvError::DuplicateTag(tag));
            }
            let stored = len
                .checked_next_multiple_of(4)
                .ok_or(TlvError::Truncated(at))?;
            let (stored, next) = after
                .split_at_checked(stored)
                .ok_or(TlvError::Truncated(at))?;
            let (value, padding) = stored.split_at(len);
            if padding.iter().any(|&b| b != 0) {
                return Err(TlvError::BadPadding(tag));
            }
            blocks.push(Block { tag, value });
            at += BLOCK_HEADER + stored.len();
            rest = next;
        }
        if !blocks.iter().any(|b| &b.tag == b"VERS") {
            return Err(TlvError::NoVersion);
        }
        Ok(Tlv { blocks })
    }

    /// The blocks, in file order.
    pub fn blocks(&self) -> &[Block<'a>] {
        &self.blocks
    }

    /// The value of `tag`, if present.
    pub fn get(&self, tag: &[u8; 4]) -> Option<&'a [u8]> {
        self.blocks.iter().find(|b| &b.tag == tag).map(|b| b.value)
    }

    /// The value of `tag` as a 32-bit integer, if present and four bytes long.
    pub fn u32(&self, tag: &[u8; 4]) -> Option<u32> {
        self.get(tag)
            .and_then(|v| <[u8; 4]>::try_from(v).ok())
            .map(u32::from_le_bytes)
    }

    /// The value of `tag` as a string, if present and printable ASCII.
    pub fn string(&self, tag: &[u8; 4]) -> Option<&'a str> {
        self.get(tag)
            .filter(|v| valid_string(v))
            .and_then(|v| core::str::from_utf8(v).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlv::Writer;

    fn sample() -> Vec<u8> {
        let mut w = Writer::new();
        w.string(b"VERS", "570.144").expect("vers");
        w.u32(b"CDSZ", 0x200).expect("cdsz");
        w.bytes(b"BLOB", &[1, 2, 3, 4, 5]).expect("blob");
        w.finish().expect("finish")
    }

    #[test]
    fn reads_back_what_the_writer_wrote() {
        let f = sample();
        let t = Tlv::parse(&f).expect("parse");
        assert_eq!(t.string(b"VERS"), Some("570.144"));
        assert_eq!(t.u32(b"CDSZ"), Some(0x200));
        assert_eq!(t.get(b"BLOB"), Some(&[1u8, 2, 3, 4, 5][..]));
        assert_eq!(t.blocks().len(), 3);
    }

    #[test]
    fn rejects_bad_magic() {
        let mut f = sample();
        f[0] = b'X';
        assert_eq!(Tlv::parse(&f).err(), Some(TlvError::BadMagic));
    }

    #[test]
    fn rejects_truncated_block_header() {
        let f = sample();
        assert_eq!(
            Tlv::parse(&f[..f.len() - 16 + 2]).err(),
            Some(TlvError::Truncated(f.len() - 16))
        );
    }

    #[test]
    fn rejects_value_past_the_end() {
        let f = sample();
        assert!(matches!(
            Tlv::parse(&f[..f.len() - 1]),
            Err(TlvError::Truncated(_))
        ));
    }

    #[test]
    fn rejects_huge_length() {
        let mut f = sample();
        f[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(Tlv::parse(&f), Err(TlvError::Truncated(4))));
    }

    #[test]
    fn rejects_lower_case_tag() {
        let mut f = sample();
        f[4..8].copy_from_slice(b"vers");
        assert_eq!(Tlv::parse(&f).err(), Some(TlvError::BadTag(*b"vers")));
    }

    #[test]
    fn rejects_duplicate_tag() {
        let mut f = sample();
        // The CDSZ block starts after NVFW and the VERS block (8 + 8).
        f[20..24].copy_from_slice(b"VERS");
        assert_eq!(Tlv::parse(&f).err(), Some(TlvError::DuplicateTag(*b"VERS")));
    }

    #[test]
    fn rejects_nonzero_padding() {
        let mut f = sample();
        // "570.144" is 7 bytes: one padding byte at 12 + 7.
        f[19] = 1;
        assert_eq!(Tlv::parse(&f).err(), Some(TlvError::BadPadding(*b"VERS")));
    }

    #[test]
    fn rejects_file_without_version() {
        let mut f = sample();
        f[4..8].copy_from_slice(b"VERX");
        assert_eq!(Tlv::parse(&f).err(), Some(TlvError::NoVersion));
    }
}
