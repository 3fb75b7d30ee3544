// SPDX-License-Identifier: GPL-2.0

//! FWSEC, planted on the falcon that depends on it.

use crate::falcon::Engine;

/// The image.
pub(crate) struct Image;

/// Runs on `engine`.
pub(crate) fn run(_engine: &Engine) {}
