// SPDX-License-Identifier: GPL-2.0

//! A falcon that loads FWSEC from [`crate::vbios::Rom`] (a doc link: no dependency).

use crate::fwsec::Image;

/// The engine.
pub(crate) struct Engine;

/// Loads `image`.
pub(crate) fn load(_image: &Image) {}
