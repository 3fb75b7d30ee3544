// SPDX-License-Identifier: GPL-2.0

//! What LIBOS, the GSP's operating system, takes from the driver as it is: its page, the size
//! of its arguments, and how it names a region.

/// Packs a LIBOS region name the way the firmware reads it: first character most significant.
pub(crate) fn libos_id8(name: &str) -> u64 {
    name.bytes()
        .take(8)
        .fold(0u64, |id, c| (id << 8) | u64::from(c))
}

/// The GSP's page: what LIBOS maps its regions in.
pub(crate) const GSP_PAGE: usize = 0x1000;

/// Size of the LIBOS arguments: one page.
pub(crate) const LIBOS_ARGS_SIZE: usize = GSP_PAGE;
