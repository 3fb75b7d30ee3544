// SPDX-License-Identifier: GPL-2.0

//! The driver's `fsp` module, without its kernel half (the registers, the transport).

#[path = "../../fsp/protocol.rs"]
pub(crate) mod protocol;
