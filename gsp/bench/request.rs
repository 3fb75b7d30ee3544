// SPDX-License-Identifier: GPL-2.0

//! What may be written to a device's debugfs file `bench` (`debugfs.rs`): an iteration count.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// Most iterations one request runs: the write that asks waits for all of them, and an unbind
/// waits for the write.
pub(crate) const MAX_ITERATIONS: u32 = 10_000;

/// Longest request the `bench` file takes: a decimal count, with a newline and some blanks.
pub(crate) const MAX_REQUEST: usize = 16;

/// An iteration count written to the `bench` file, validated: a decimal number in
/// `1..=MAX_ITERATIONS`, with blanks and a newline around it as `echo` writes them.
#[derive(Debug, PartialEq)]
pub(crate) struct Iterations(pub(crate) u32);

/// Why a request was refused.
#[derive(Debug, PartialEq)]
pub(crate) enum BadRequest {
    /// Not made of decimal digits alone (after trimming blanks).
    NotANumber,
    /// Zero iterations: nothing to measure.
    Zero,
    /// More than [`MAX_ITERATIONS`].
    TooMany,
}

impl core::fmt::Display for BadRequest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotANumber => write!(f, "not a decimal iteration count"),
            Self::Zero => write!(f, "0 iterations: nothing to measure"),
            Self::TooMany => write!(f, "more than {} iterations", MAX_ITERATIONS),
        }
    }
}

impl Validator<&Untrusted<[u8]>> for Iterations {
    type Err = BadRequest;

    fn validate(raw: &[u8]) -> Result<Iterations, BadRequest> {
        let digits = raw.trim_ascii();
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return Err(BadRequest::NotANumber);
        }
        let n = digits.iter().try_fold(0u32, |n, &d| {
            n.checked_mul(10)
                .and_then(|n| n.checked_add(u32::from(d - b'0')))
                .filter(|&n| n <= MAX_ITERATIONS)
        });
        match n {
            None => Err(BadRequest::TooMany),
            Some(0) => Err(BadRequest::Zero),
            Some(n) => Ok(Iterations(n)),
        }
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_bench)]
mod tests {
    use super::*;

    fn request(bytes: &[u8]) -> Result<Iterations, BadRequest> {
        Untrusted::new_untrusted_ref(bytes).validate_ref::<Iterations>()
    }

    #[test]
    fn a_count_as_echo_writes_it_is_taken() {
        assert_eq!(request(b"20\n"), Ok(Iterations(20)));
        assert_eq!(request(b"  7 \n"), Ok(Iterations(7)));
        assert_eq!(request(b"1"), Ok(Iterations(1)));
        assert_eq!(request(b"0010000"), Ok(Iterations(MAX_ITERATIONS)));
    }

    #[test]
    fn what_is_not_a_count_is_refused() {
        for bad in [
            &b""[..],
            b"\n",
            b"abc\n",
            b"-5",
            b"+5",
            b"1 2",
            b"0x10",
            b"12a",
            b"\xff",
        ] {
            assert_eq!(request(bad), Err(BadRequest::NotANumber));
        }
    }

    #[test]
    fn counts_out_of_range_are_refused() {
        assert_eq!(request(b"0\n"), Err(BadRequest::Zero));
        assert_eq!(request(b"000"), Err(BadRequest::Zero));
        assert_eq!(request(b"10001"), Err(BadRequest::TooMany));
        // Past u32: no wrap-around into range.
        assert_eq!(request(b"4294967297"), Err(BadRequest::TooMany));
        assert_eq!(request(b"99999999999999"), Err(BadRequest::TooMany));
    }
}
