// SPDX-License-Identifier: GPL-2.0

//! The driver's `falcon` module, without its kernel half (the register accesses).

#[path = "../../falcon/load.rs"]
pub(crate) mod load;
#[path = "../../falcon/state.rs"]
pub(crate) mod state;
