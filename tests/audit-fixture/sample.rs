// SPDX-License-Identifier: GPL-2.0

//! Fixture of the escape-hatch audit: line 13 must be reported as unexplained,
//! the others as explained.

impl Validator for Thing {
    fn validate(raw: &Untrusted<u32>) -> Result<Thing> {
        Ok(Thing(*raw.untrusted()))
    }
}

fn careless(raw: &Untrusted<u32>) -> u32 {
    *raw.untrusted()
}

fn careful(raw: &Untrusted<u32>) -> u32 {
    // UNTRUSTED: printed only.
    *raw.untrusted()
}
