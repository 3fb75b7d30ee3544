// SPDX-License-Identifier: GPL-2.0

//! The driver's `untrusted.rs`, compiled on the host to prove that outside validation impls,
//! code that reads an `Untrusted` does not compile.
//!
//! Without features the crate builds: [`control`] uses the API as the driver does (wrap, then
//! validate through a `Validator` impl), which shows the cases fail for what they do and not
//! because the file does not build here. Each feature adds one case of `src/cases.rs` that reads
//! an `Untrusted` another way; `tests/compile_fail.rs` builds each one and checks that the
//! compiler refuses it with the expected error.

#[path = "../../../untrusted.rs"]
#[expect(dead_code, reason = "only the API's shape is under test")]
mod untrusted;

mod cases;

use untrusted::{
    Untrusted,
    Validator, //
};

/// A register value the driver accepts when it is even.
struct Even(u32);

impl Validator<Untrusted<u32>> for Even {
    type Err = ();

    fn validate(raw: u32) -> Result<Even, ()> {
        if raw % 2 == 0 {
            Ok(Even(raw))
        } else {
            Err(())
        }
    }
}

/// The way in: wrap, validate, use the validated value.
pub fn control(register: u32) -> Option<u32> {
    Untrusted::new_untrusted(register)
        .validate::<Even>()
        .ok()
        .map(|e| e.0)
}
