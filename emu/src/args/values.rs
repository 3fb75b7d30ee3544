// SPDX-License-Identifier: GPL-2.0

//! The value parsers of the command line: numbers (`0x` hex or decimal, sizes with a binary
//! `K`, `M` or `G` suffix), checked against each option's range, and the `--vbios` dump read
//! whole. Each returns the error text that clap prints after naming the option and the value.

use std::sync::Arc;
use std::time::Duration;

use crate::chipset::{
    self,
    Chipset, //
};
use crate::prom::Dump;

/// Default BAR0 size: 16 MiB.
pub const DEFAULT_BAR0_SIZE: u64 = 16 << 20;

/// Default BAR1 size: 256 MiB.
pub const DEFAULT_BAR1_SIZE: u64 = 256 << 20;

/// Smallest BAR0/BAR1 size.
const MIN_BAR_SIZE: u64 = 4096;

/// Largest BAR0 size: BAR0 is a 32-bit BAR.
const MAX_BAR0_SIZE: u64 = 2 << 30;

/// Largest BAR1 size accepted.
const MAX_BAR1_SIZE: u64 = 1 << 40;

/// Longest `--gfw-delay`, in milliseconds.
const MAX_GFW_DELAY_MS: u64 = 60_000;

/// Parses a number: `0x` hex or decimal, with an optional binary K, M or G suffix when
/// `suffixes` is set.
pub fn number(text: &str, suffixes: bool) -> Option<u64> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, c)) if suffixes && "kKmMgG".contains(c) => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                _ => 30,
            };
            (&text[..i], 1u64 << shift)
        }
        _ => (text, 1),
    };
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok()?
    } else {
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u64>().ok()?
    };
    value.checked_mul(scale)
}

/// `--chipset`: a name of the chipset table.
pub fn chipset(text: &str) -> Result<&'static Chipset, String> {
    chipset::find(text).map_err(|e| e.to_string())
}

/// `--boot0`, `--boot42`: a raw register value.
pub fn register(text: &str) -> Result<u32, String> {
    number(text, false)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| format!("'{text}' is not a 32-bit number (decimal or 0x hex)"))
}

/// `--device-id`: a PCI device id.
pub fn device_id(text: &str) -> Result<u16, String> {
    number(text, false)
        .and_then(|n| u16::try_from(n).ok())
        .ok_or_else(|| format!("'{text}' is not a 16-bit number"))
}

/// `--bar0-size`: 0 (no BAR0) or a power of two from 4 KiB to 2 GiB.
pub fn bar0_size(text: &str) -> Result<u64, String> {
    bar_size(text, MAX_BAR0_SIZE)
}

/// `--bar1-size`: 0 (no BAR1) or a power of two from 4 KiB to 1 TiB.
pub fn bar1_size(text: &str) -> Result<u64, String> {
    bar_size(text, MAX_BAR1_SIZE)
}

fn bar_size(text: &str, max: u64) -> Result<u64, String> {
    let size = number(text, true).ok_or_else(|| {
        format!("'{text}' is not a size in bytes (decimal or 0x hex, optional K/M/G)")
    })?;
    if size == 0 {
        return Ok(0);
    }
    if !size.is_power_of_two() || size < MIN_BAR_SIZE {
        return Err(format!(
            "{size:#x} is not a power of two of at least {MIN_BAR_SIZE} bytes"
        ));
    }
    if size > max {
        return Err(format!("{size:#x} is larger than the maximum {max:#x}"));
    }
    Ok(size)
}

/// `--fb-size`: the video memory size, in the range the FB registers can say.
pub fn fb_size(text: &str) -> Result<u64, String> {
    number(text, true)
        .filter(|n| crate::fb::FB_SIZE_RANGE.contains(n))
        .ok_or_else(|| {
            format!("'{text}' is not a size from 256M to 1024G (decimal or 0x hex, optional K/M/G)")
        })
}

/// `--fb-mmu-lock`: an address (decimal or 0x hex, optional K/M/G); the FB unit says whether
/// it can be locked there.
pub fn address(text: &str) -> Result<u64, String> {
    number(text, true).ok_or_else(|| format!("'{text}' is not an address"))
}

/// `--gfw-delay`: milliseconds, at most a minute.
pub fn gfw_delay(text: &str) -> Result<Duration, String> {
    number(text, false)
        .filter(|&ms| ms <= MAX_GFW_DELAY_MS)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("'{text}' is not 0 to {MAX_GFW_DELAY_MS} ms"))
}

/// `--vbios`: a flash dump, read whole when the command line is parsed, so that a file that
/// cannot be served is a command-line error.
pub fn vbios(text: &str) -> Result<Arc<Dump>, String> {
    if text.is_empty() {
        return Err("needs a non-empty path".to_string());
    }
    Dump::load(text.as_ref()).map(Arc::new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_hex_or_decimal_with_optional_binary_suffixes() {
        assert_eq!(number("4096", false), Some(4096));
        assert_eq!(number("0x10M", true), Some(16 << 20));
        assert_eq!(number("0X1000", false), Some(0x1000));
        assert_eq!(number("64k", true), Some(64 << 10));
        assert_eq!(number("2G", true), Some(2 << 30));
        assert_eq!(number("0xfffffffffffffffffG", true), None);
        assert_eq!(number("16M", false), None);
        assert_eq!(number("1T", true), None);
        for bad in ["", "K", "0x", "+1", "-1", "0x1_0000", "1.5M", " 1"] {
            assert_eq!(number(bad, true), None, "{bad:?}");
        }
    }

    #[test]
    fn registers_are_32_bit_and_device_ids_16_bit() {
        assert_eq!(register("0xffffffff"), Ok(u32::MAX));
        assert_eq!(register("305419896"), Ok(0x1234_5678));
        for bad in ["0x1_0000_0000", "0x100000000", "0x", "12k", "-1"] {
            assert_eq!(
                register(bad),
                Err(format!(
                    "'{bad}' is not a 32-bit number (decimal or 0x hex)"
                ))
            );
        }
        assert_eq!(device_id("0x1e04"), Ok(0x1e04));
        assert_eq!(
            device_id("0x10000"),
            Err("'0x10000' is not a 16-bit number".to_string())
        );
    }

    #[test]
    fn bar_sizes_are_0_or_powers_of_two_in_range() {
        for zero in ["0", "0x0", "0K"] {
            assert_eq!(bar0_size(zero), Ok(0));
            assert_eq!(bar1_size(zero), Ok(0));
        }
        assert_eq!(bar0_size("4096"), Ok(4096));
        assert_eq!(bar0_size("2G"), Ok(2 << 30));
        assert_eq!(bar1_size("64G"), Ok(64 << 30));
        assert_eq!(bar1_size("1024G"), Ok(1 << 40));
        for (bad, why) in [
            ("3000", "0xbb8 is not a power of two of at least 4096 bytes"),
            ("2048", "0x800 is not a power of two of at least 4096 bytes"),
            (
                "0x1800000",
                "0x1800000 is not a power of two of at least 4096 bytes",
            ),
            ("4G", "0x100000000 is larger than the maximum 0x80000000"),
            (
                "junk",
                "'junk' is not a size in bytes (decimal or 0x hex, optional K/M/G)",
            ),
            (
                "1T",
                "'1T' is not a size in bytes (decimal or 0x hex, optional K/M/G)",
            ),
        ] {
            assert_eq!(bar0_size(bad), Err(why.to_string()), "{bad}");
        }
        assert_eq!(
            bar1_size("2048G"),
            Err("0x20000000000 is larger than the maximum 0x10000000000".to_string())
        );
    }

    #[test]
    fn fb_size_and_gfw_delay_stay_in_range() {
        assert_eq!(fb_size("256M"), Ok(256 << 20));
        assert_eq!(fb_size("1024G"), Ok(1 << 40));
        assert!(fb_size("255M").is_err() && fb_size("1025G").is_err());
        assert_eq!(gfw_delay("60000"), Ok(Duration::from_secs(60)));
        assert_eq!(
            gfw_delay("60001"),
            Err("'60001' is not 0 to 60000 ms".to_string())
        );
    }

    #[test]
    fn an_empty_vbios_path_is_refused_before_any_file_is_opened() {
        assert_eq!(
            vbios("").map(|_| ()),
            Err("needs a non-empty path".to_string())
        );
    }
}
