// SPDX-License-Identifier: GPL-2.0

//! The GSP's falcon: FWSEC runs on it, then GSP-RM's RISC-V core.

use kernel::io::register::RegisterBase;

use super::{
    FalconEngine,
    PFalcon2Base,
    PFalconBase, //
};

/// The GSP falcon engine.
pub(crate) struct Gsp(());

impl RegisterBase<PFalconBase> for Gsp {
    const BASE: usize = 0x0011_0000;
}

impl RegisterBase<PFalcon2Base> for Gsp {
    const BASE: usize = 0x0011_1000;
}

impl FalconEngine for Gsp {
    const NAME: &'static str = "GSP";
}
