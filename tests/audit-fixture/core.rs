// SPDX-License-Identifier: GPL-2.0

//! Fixture of the untrusted-input audit: a parsing-core file with two listed validation impls,
//! `Thing` (fine) and `Anything` (generic: it would pass any input through).

impl Validator<Untrusted<u32>> for Thing {
    type Err = ();

    fn validate(raw: u32) -> Result<Thing, ()> {
        Ok(Thing(raw))
    }
}

impl<T> Validator<Untrusted<T>> for Anything<T> {
    type Err = ();

    fn validate(raw: T) -> Result<Anything<T>, ()> {
        Ok(Anything(raw))
    }
}
