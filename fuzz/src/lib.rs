// SPDX-License-Identifier: GPL-2.0

//! nova_core's parsing core, compiled for the host.
//!
//! Every Validator of the driver keeps its logic in files that use nothing of the kernel (see
//! `untrusted.rs`): the identification registers (`chip.rs`), the PCI function (`pci.rs`), the
//! firmware files (`firmware/{image,elf,bin_hdr,booter}.rs`), the GSP message queues
//! (`gsp/msgq.rs`), the GSP's replies (`gsp/replies.rs`), its CPU sequence
//! (`gsp/sequencer/commands.rs`), the FSP's messages (`fsp/protocol.rs`), the framebuffer
//! (`fb/layout.rs`, `fb/sizes.rs`) and the VBIOS (`vbios.rs`, `vbios/*.rs`), with the
//! per-version bindings bindgen generated for the module (`gsp/fw/*/bindings_generated.rs`,
//! made by `make modules`) and the same versioning macro.
//! This crate includes those very files, in the driver's module tree, so that the code fuzzed
//! and tested here is the code the module runs; [`check`] has one entry point per Validator,
//! which the fuzz targets (`targets/`) and the tests (`tests/`) call.

#![allow(
    dead_code,
    reason = "the module uses parts of the core these entry points do not"
)]

#[path = "../../untrusted.rs"]
pub(crate) mod untrusted;

#[path = "../../chip.rs"]
pub(crate) mod chip;

#[path = "../../pci.rs"]
pub(crate) mod pci;

#[path = "../../devinit/gfw.rs"]
pub(crate) mod gfw;

pub(crate) mod falcon;
#[path = "../../family.rs"]
pub(crate) mod family;
pub(crate) mod fb;

pub(crate) mod firmware;
pub(crate) mod fsp;
pub(crate) mod fwsec;
#[macro_use]
pub(crate) mod gsp;
pub(crate) mod intr;

#[path = "../../vbios.rs"]
pub(crate) mod vbios;

pub mod check;
pub mod check_fsp;
pub mod check_rm;
