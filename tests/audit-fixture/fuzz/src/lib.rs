// SPDX-License-Identifier: GPL-2.0

//! Fixture of the untrusted-input audit: the host crate includes the parsing core.

#[path = "../../core.rs"]
mod core_file;
