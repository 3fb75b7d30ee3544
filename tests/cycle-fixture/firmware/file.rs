// SPDX-License-Identifier: GPL-2.0

//! One file's check, which uses its parent.

use super::FwError;

/// Checks the file.
pub(crate) fn check(bytes: &[u8]) -> Result<(), FwError> {
    if bytes.is_empty() {
        let _ = super::parse(&[0]);
    }
    Err(FwError)
}
