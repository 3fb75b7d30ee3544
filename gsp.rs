// SPDX-License-Identifier: GPL-2.0

//! The GSP firmware interface, one implementation per firmware version.
//!
//! What differs between versions is written once inside `gsp_versioned!` modules (see
//! `gsp/macros`), which the `nova_versions` procedural macro expands into one copy per
//! supported firmware version; what is the same is written and compiled once, on the bindings'
//! common structures (`gsp/fw.rs`). The driver reaches the versioned copies only through the
//! trait [`interface::Interface`], which every version implements: code generic over it, entered
//! from the version chosen at run time through the matches generated from the version list
//! (`FwVersion::with`, `AnyGsp`).

#[macro_use]
pub(crate) mod versions;

pub(crate) mod arrivals;
#[cfg(CONFIG_NOVA_CORE_BENCH)]
pub(crate) mod bench;
pub(crate) mod boot;
pub(crate) mod chain;
pub(crate) mod commands;
pub(crate) mod encode;
pub(crate) mod fsp_chain;
pub(crate) mod fw;
pub(crate) mod hal;
pub(crate) mod interface;
pub(crate) mod irq;
pub(crate) mod libos;
pub(crate) mod logs;
pub(crate) mod msgq;
pub(crate) mod queues;
pub(crate) mod radix3;
pub(crate) mod replies;
pub(crate) mod rm;
pub(crate) mod running;
pub(crate) mod sequencer;
pub(crate) mod shared;
pub(crate) mod start;
pub(crate) mod teardown;
pub(crate) mod wpr;

pub(crate) use msgq::Function;
