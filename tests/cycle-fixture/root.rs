// SPDX-License-Identifier: GPL-2.0

//! The module-cycle gate's fixture: one planted cycle (`falcon` and `fwsec` use each other),
//! and dependencies that close no cycle, each of which would if it were counted wrongly:
//! - `firmware`'s test suite uses `vbios`, which uses `firmware`;
//! - `booter` names `firmware::FwError`, a re-export of `firmware::error`'s, and `firmware`
//!   uses `booter`;
//! - `firmware::file` uses its parent, which uses it;
//! - `falcon`'s doc comment links `vbios`, which uses `falcon`.

mod booter;
mod falcon;
mod firmware;
mod fwsec;
mod vbios;
