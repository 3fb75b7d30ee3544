// SPDX-License-Identifier: GPL-2.0

//! `nova-tlv --dump`: a TLV file shown for humans, one line per tag with its length and its
//! value (strings quoted, 32-bit integers in hexadecimal and decimal, the start of byte
//! arrays).

use std::fmt::Write;

use crate::{
    hex::hex,
    tlv::{
        valid_string,
        ShowTag,
        Tlv,
        TlvError, //
    },
};

/// Tags whose values are strings.
const STRINGS: &[&[u8; 4]] = &[b"VERS", b"FILE", b"BLID"];

/// Tags whose values are byte arrays, whatever their length.
const BYTES: &[&[u8; 4]] = &[b"BLOB", b"SIGN", b"HASH", b"PKEY"];

/// How many bytes of a byte array are shown.
const SHOWN: usize = 16;

/// One value, as shown.
fn value(tag: &[u8; 4], v: &[u8]) -> String {
    if STRINGS.contains(&tag) && valid_string(v) {
        return format!("\"{}\"", String::from_utf8_lossy(v));
    }
    if !BYTES.contains(&tag) {
        if let Ok(word) = <[u8; 4]>::try_from(v) {
            let n = u32::from_le_bytes(word);
            return format!("{n:#010x} ({n})");
        }
    }
    let mut s = hex(v.get(..SHOWN).unwrap_or(v));
    if v.len() > SHOWN {
        s.push_str("...");
    }
    s
}

/// The text `--dump` prints for the TLV file `file`.
pub fn dump(file: &[u8]) -> Result<String, TlvError> {
    let t = Tlv::parse(file)?;
    let mut out = String::new();
    // Writing into a `String` cannot fail.
    let _ = writeln!(out, "NVFW: {} tags, {} bytes", t.blocks().len(), file.len());
    for b in t.blocks() {
        let _ = writeln!(
            out,
            "{}  {:>9}  {}",
            ShowTag(&b.tag),
            b.value.len(),
            value(&b.tag, b.value)
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tlv::Writer;

    #[test]
    fn shows_strings_integers_and_bytes() {
        let mut w = Writer::new();
        w.string(b"VERS", "570.144").expect("vers");
        w.u32(b"CDSZ", 0x200).expect("cdsz");
        w.bytes(b"SIGN", &[0xab; 4]).expect("sign");
        w.bytes(b"BLOB", &[1; 20]).expect("blob");
        let text = dump(&w.finish().expect("finish")).expect("dump");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "NVFW: 4 tags, 72 bytes");
        assert_eq!(lines[1], "VERS          7  \"570.144\"");
        assert_eq!(lines[2], "CDSZ          4  0x00000200 (512)");
        assert_eq!(lines[3], "SIGN          4  abababab");
        assert_eq!(
            lines[4],
            "BLOB         20  01010101010101010101010101010101..."
        );
    }

    #[test]
    fn refuses_an_invalid_file() {
        assert_eq!(dump(b"NVFX"), Err(TlvError::BadMagic));
    }
}
