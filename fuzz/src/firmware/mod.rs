// SPDX-License-Identifier: GPL-2.0

//! The driver's `firmware` module, without its kernel half (requesting files, logging).

#[path = "../../../firmware/bin_hdr.rs"]
pub(crate) mod bin_hdr;
#[path = "../../../firmware/booter.rs"]
pub(crate) mod booter;
#[path = "../../../firmware/elf.rs"]
pub(crate) mod elf;
#[path = "../../../firmware/error.rs"]
pub(crate) mod error;
#[path = "../../../firmware/fmc.rs"]
pub(crate) mod fmc;
#[path = "../../../firmware/image.rs"]
pub(crate) mod image;
#[path = "../../../firmware/riscv.rs"]
pub(crate) mod riscv;

pub(crate) use error::*;
pub(crate) use image::*;
