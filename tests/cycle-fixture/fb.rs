// SPDX-License-Identifier: GPL-2.0

//! The framebuffer, planted on a child of `firmware`, whose parent uses it.

/// The layout, checked by a firmware file's check.
pub(crate) fn layout() -> bool {
    crate::firmware::file::check(&[]).is_err()
}
