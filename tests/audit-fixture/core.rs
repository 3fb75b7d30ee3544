// SPDX-License-Identifier: GPL-2.0

//! Fixture of the untrusted-input audit: a parsing-core file with a listed validation impl.

impl Validator<Untrusted<u32>> for Thing {
    type Err = ();

    fn validate(raw: u32) -> Result<Thing, ()> {
        Ok(Thing(raw))
    }
}
