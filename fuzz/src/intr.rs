// SPDX-License-Identifier: GPL-2.0

//! The driver's `intr` module, without its kernel half (the register accesses).

#[path = "../../intr/status.rs"]
pub(crate) mod status;
