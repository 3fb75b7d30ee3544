// SPDX-License-Identifier: GPL-2.0

//! Bytes as lower-case hexadecimal: the build id of `gsp.tlv`'s `BLID`, and byte arrays as
//! `--dump` shows them.

use std::fmt::Write;

/// `bytes` as lower-case hexadecimal, two digits a byte.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(2 * bytes.len()), |mut s, b| {
            // Writing into a `String` cannot fail.
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_lower_case_digits_a_byte() {
        assert_eq!(hex(&[0x0a, 0xb5, 0x00]), "0ab500");
        assert_eq!(hex(&[]), "");
    }
}
