// SPDX-License-Identifier: GPL-2.0

//! The driver's `fb` module, without its kernel half (register reads, the flush page).

#[path = "../../fb/layout.rs"]
pub(crate) mod layout;
#[path = "../../fb/sizes.rs"]
pub(crate) mod sizes;
