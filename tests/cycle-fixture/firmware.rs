// SPDX-License-Identifier: GPL-2.0

//! Firmware files.

pub(crate) mod error;
pub(crate) mod file;

pub(crate) use error::FwError;

/// Parses a file, for the booter's layout, once the framebuffer's is known.
pub(crate) fn parse(bytes: &[u8]) -> crate::booter::Layout {
    let _ = crate::fb::layout();
    crate::booter::Layout(file::check(bytes).err())
}

#[kunit_tests(fixture_firmware)]
mod tests {
    #[test]
    fn the_vbios_parses() {
        let _ = crate::vbios::read(&crate::falcon::Engine);
    }
}
