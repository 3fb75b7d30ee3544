// SPDX-License-Identifier: GPL-2.0

//! The VBIOS, read for a falcon, parsed by `firmware`.

use crate::{
    falcon::Engine,
    firmware::parse, //
};

mod bit;

/// The ROM.
pub(crate) struct Rom;

/// Reads the ROM for `engine`.
pub(crate) fn read(_engine: &Engine) -> Rom {
    let _ = parse(&[]);
    let _ = bit::find(&Rom);
    Rom
}
