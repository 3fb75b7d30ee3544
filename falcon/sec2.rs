// SPDX-License-Identifier: GPL-2.0

//! SEC2's falcon: the booter runs on it.

use kernel::io::register::RegisterBase;

use super::{
    FalconEngine,
    PFalcon2Base,
    PFalconBase, //
};

/// The SEC2 falcon engine: the booter runs on it.
pub(crate) struct Sec2(());

impl RegisterBase<PFalconBase> for Sec2 {
    const BASE: usize = 0x0084_0000;
}

impl RegisterBase<PFalcon2Base> for Sec2 {
    const BASE: usize = 0x0084_1000;
}

impl FalconEngine for Sec2 {
    const NAME: &'static str = "SEC2";
}
