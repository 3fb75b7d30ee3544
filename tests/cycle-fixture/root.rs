// SPDX-License-Identifier: GPL-2.0

//! The module-cycle gate's fixture: two planted cycles (`falcon` and `fwsec` use each other;
//! `fb` uses `firmware::file`, whose parent `firmware` uses `fb`), and dependencies that close
//! no cycle, each of which would if it were counted wrongly:
//! - `firmware`'s test suite uses `vbios`, which uses `firmware`;
//! - `booter` names `firmware::FwError`, a re-export of `firmware::error`'s, and `firmware`
//!   uses `booter`;
//! - `vbios::bit` uses its parent, which uses it;
//! - `falcon`'s doc comment links `vbios`, which uses `falcon`.

mod booter;
mod falcon;
mod fb;
mod firmware;
mod fwsec;
mod vbios;
