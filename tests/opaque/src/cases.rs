// SPDX-License-Identifier: GPL-2.0

//! Ways to read an `Untrusted` outside a validation impl; each must fail to compile.

#[allow(unused_imports, reason = "not every case uses every name")]
use crate::untrusted::{
    Input,
    Untrusted,
    Validator, //
};

/// The wrapped field is private to `untrusted.rs`.
#[cfg(feature = "field")]
pub fn field(raw: &Untrusted<u32>) -> u32 {
    raw.0
}

/// Nor can a pattern take it apart.
#[cfg(feature = "pattern")]
pub fn pattern(raw: Untrusted<u32>) -> u32 {
    let Untrusted(value) = raw;
    value
}

/// The first version's escape hatches are gone.
#[cfg(feature = "accessor")]
pub fn accessor(raw: &Untrusted<u32>) -> u32 {
    *raw.untrusted()
}

#[cfg(feature = "accessor-mut")]
pub fn accessor_mut(raw: &mut Untrusted<u32>) -> u32 {
    *raw.untrusted_mut()
}

#[cfg(feature = "into-inner")]
pub fn into_inner(raw: Untrusted<u32>) -> u32 {
    raw.into_inner_untrusted()
}

/// So are the first version's closure validators.
#[cfg(feature = "closure")]
pub fn closure(raw: &Untrusted<u32>) -> Result<u32, ()> {
    raw.validate_with(|&v| Ok(v))
}

#[cfg(feature = "closure-bytes")]
pub fn closure_bytes(raw: &Untrusted<[u8]>) -> Result<usize, ()> {
    raw.validate_bytes(|b| Ok(b.len()))
}

/// An untrusted value does not dereference to its value.
#[cfg(feature = "deref")]
pub fn deref(raw: &Untrusted<u32>) -> u32 {
    **raw
}

/// An untrusted owner does not dereference through its own `Deref` (the first version's blanket
/// impl ran the untrusted value's code).
#[cfg(feature = "deref-owner")]
pub fn deref_owner<'a>(raw: &'a Untrusted<&'a u32>) -> &'a Untrusted<u32> {
    &**raw
}

/// An untrusted slice's elements are untrusted too.
#[cfg(feature = "element")]
pub fn element(raw: &Untrusted<[u8]>) -> u8 {
    raw[0]
}

/// Untrusted bytes do not compare with trusted ones (the comparison would be a check).
#[cfg(feature = "compare")]
pub fn compare(raw: &Untrusted<[u8]>) -> bool {
    *raw == *b"570.144"
}

#[cfg(feature = "compare-slice")]
pub fn compare_slice(raw: &Untrusted<[u8]>) -> bool {
    *raw == b"570.144"[..]
}

/// Nor do they print.
#[cfg(feature = "debug")]
pub fn debug(raw: &Untrusted<u32>) -> String {
    format!("{raw:?}")
}

/// A type of one's own cannot become a validator input that unwraps an `Untrusted`.
#[cfg(feature = "input")]
pub struct Peek<'a>(pub &'a Untrusted<u32>);

#[cfg(feature = "input")]
impl<'a> Input for Peek<'a> {
    type Raw = &'a u32;
}

/// The seal itself is out of reach.
#[cfg(feature = "sealed")]
pub struct Peek<'a>(pub &'a Untrusted<u32>);

#[cfg(feature = "sealed")]
impl crate::untrusted::sealed::Sealed for Peek<'_> {}
