// SPDX-License-Identifier: GPL-2.0

//! What a `REG_POLL` of GSP-RM's CPU sequence waits for: the register, masked, reading a value.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::untrusted::{
    Untrusted,
    Validator, //
};

/// A polled register reached the value a `REG_POLL` waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PollMatch;

/// The polled register's value did not match (yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PollMismatch(pub(crate) u32);

impl fmt::Display for PollMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the register reads {:#010x}", self.0)
    }
}

/// The register's value against `(mask, val)` of a `REG_POLL`.
impl Validator<(&Untrusted<u32>, (u32, u32))> for PollMatch {
    type Err = PollMismatch;

    fn validate((raw, (mask, val)): (&u32, (u32, u32))) -> Result<PollMatch, PollMismatch> {
        if raw & mask == val {
            Ok(PollMatch)
        } else {
            Err(PollMismatch(*raw))
        }
    }
}
