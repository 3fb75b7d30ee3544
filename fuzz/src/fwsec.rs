// SPDX-License-Identifier: GPL-2.0

//! The driver's `fwsec` module, without its kernel half (the falcon run).

#[path = "../../fwsec/image.rs"]
pub(crate) mod image;
#[path = "../../fwsec/outcome.rs"]
pub(crate) mod outcome;
