// SPDX-License-Identifier: GPL-2.0

//! Fixture of the untrusted-input audit: the driver side. `careless` wraps input the table does
//! not list, `unwrapped` reads a register it never wraps, `unwrapped_word` a word of BAR0 by its
//! offset, `Loose` is an unlisted validation impl
//! outside the parsing core; `read_thing` is fine.

fn read_thing(bar: &Bar0) -> Untrusted<u32> {
    Untrusted::new_untrusted(bar.read32(0))
}

fn careless(bar: &Bar0) -> Untrusted<u32> {
    Untrusted::new_untrusted(bar.read32(4))
}

fn unwrapped(bar: &Bar0) -> u32 {
    bar.read(regs::NV_PMC_BOOT_42).into_raw()
}

fn unwrapped_word(bar: &Bar0) -> u32 {
    bar.try_read32(0x300000).unwrap_or(0)
}

impl Validator<Untrusted<u32>> for Loose {
    type Err = ();

    fn validate(raw: u32) -> Result<Loose, ()> {
        Ok(Loose(raw))
    }
}

mod tests {
    fn in_a_test() -> Untrusted<u32> {
        Untrusted::new_untrusted(0)
    }
}
