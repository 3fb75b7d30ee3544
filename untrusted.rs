// SPDX-License-Identifier: GPL-2.0

//! Untrusted data and its validation.
//!
//! Everything the device, a firmware file or the GSP tells the driver enters as [`Untrusted<T>`],
//! and an `Untrusted<T>` is opaque: it has no accessor of the raw value, no comparison, no
//! formatting. The one way to the value is a validation impl, `impl Validator<Input> for Output`,
//! next to the type it produces: [`Untrusted::validate`] (by value), [`Untrusted::validate_ref`]
//! (shared), [`Untrusted::validate_mut`] (exclusive) and [`Untrusted::validate_ref_against`]
//! (shared, with what the driver expects) hand the raw value to [`Validator::validate`], and
//! nothing else can. Outside validation impls, code that reads an `Untrusted` does not compile
//! (`tests/opaque` proves it).
//!
//! Rules for contributors (`docs/untrusted.md` has the reasons and the list of input points):
//! - Wrap device, firmware and shared-memory data into `Untrusted` where it is read, at the
//!   lowest layer.
//! - Implement [`Validator`] on the type the validation produces, generic over the input it
//!   reads; an output may borrow from its input (zero-copy validation).
//! - Keep a validator's logic in the parsing core: plain Rust on `core` and `zerocopy`, no kernel
//!   types, so that it also compiles for the host and is fuzzed there (`fuzz/`). This file is
//!   part of the core, except for the kernel vector impls and the KUnit tests at its end
//!   (`cfg(CONFIG_RUST)`, `cfg(CONFIG_KUNIT)`: the host build does not see them).
//!
//! # Examples
//!
//! ```ignore
//! use crate::untrusted::{Untrusted, Validator};
//!
//! struct Even(u32);
//!
//! impl Validator<Untrusted<u32>> for Even {
//!     type Err = Error;
//!
//!     fn validate(raw: u32) -> Result<Even> {
//!         if raw % 2 == 0 { Ok(Even(raw)) } else { Err(EINVAL) }
//!     }
//! }
//!
//! assert!(Untrusted::new_untrusted(4u32).validate::<Even>().is_ok());
//! assert!(Untrusted::new_untrusted(3u32).validate::<Even>().is_err());
//! ```

use core::ops::{
    Deref,
    DerefMut, //
};

/// Why a typed read of untrusted bytes failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The value does not lie entirely inside the buffer.
    OutOfBounds,
}

/// A value that has not been validated yet: opaque until a [`Validator`] takes it.
///
/// `#[repr(transparent)]`: an `Untrusted<T>` has the layout of `T`, so references to untrusted
/// data are made in place (see [`Untrusted::new_untrusted_ref`]) without copying, and an
/// untrusted slice is a slice of untrusted elements.
#[repr(transparent)]
#[derive(Clone, Copy, Default)]
pub(crate) struct Untrusted<T: ?Sized>(T);

/// Checks untrusted data and produces a trusted value from it: the only entry point of
/// validation code.
///
/// Implemented on the output type, generic over the input: `Untrusted<T>` (validated by value),
/// `&Untrusted<T>`, `&mut Untrusted<T>`, or `(&Untrusted<T>, C)` where `C` is what the driver
/// already trusts and checks the data against (a sequence number it expects, the firmware
/// version it asked for). [`Validator::validate`] receives the raw inner value (`T`, `&T`,
/// `&mut T`, `(&T, C)`), through the sealed [`Input`] trait; an output may borrow from it.
///
/// # Examples
///
/// ```ignore
/// /// A name of at most 8 bytes, borrowed from the validated bytes.
/// struct Name<'a>(&'a [u8]);
///
/// impl<'a> Validator<&'a Untrusted<[u8]>> for Name<'a> {
///     type Err = Error;
///
///     fn validate(raw: &'a [u8]) -> Result<Name<'a>> {
///         if raw.len() <= 8 { Ok(Name(raw)) } else { Err(EINVAL) }
///     }
/// }
/// ```
pub(crate) trait Validator<I: Input>: Sized {
    /// The error it reports for bad input; raw values a log line quotes travel in it.
    type Err;

    /// Checks `raw` and returns the trusted value, or the reason it was rejected.
    fn validate(raw: I::Raw) -> Result<Self, Self::Err>;
}

mod sealed {
    /// Only this module decides what a validator may take as input.
    pub(crate) trait Sealed {}
}

/// What a [`Validator`] may take: an `Untrusted` by value, by shared or exclusive reference, or
/// by shared reference with trusted expectations. Sealed: no other type can unwrap an
/// `Untrusted`.
pub(crate) trait Input: sealed::Sealed {
    /// What the validator receives: the unwrapped value or reference.
    type Raw;
}

impl<T> sealed::Sealed for Untrusted<T> {}
impl<T> Input for Untrusted<T> {
    type Raw = T;
}

impl<T: ?Sized> sealed::Sealed for &Untrusted<T> {}
impl<'a, T: ?Sized> Input for &'a Untrusted<T> {
    type Raw = &'a T;
}

impl<T: ?Sized> sealed::Sealed for &mut Untrusted<T> {}
impl<'a, T: ?Sized> Input for &'a mut Untrusted<T> {
    type Raw = &'a mut T;
}

impl<T: ?Sized, C> sealed::Sealed for (&Untrusted<T>, C) {}
impl<'a, T: ?Sized, C> Input for (&'a Untrusted<T>, C) {
    type Raw = (&'a T, C);
}

impl<T> Untrusted<T> {
    /// Marks an owned value as untrusted.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let raw = Untrusted::new_untrusted(0x1720_00a1u32);
    /// ```
    pub(crate) const fn new_untrusted(value: T) -> Self {
        Self(value)
    }

    /// Validates the value, consuming it, into a `V`.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let spec = Untrusted::new_untrusted(regs).validate::<Spec>()?;
    /// ```
    pub(crate) fn validate<V: Validator<Self>>(self) -> Result<V, V::Err> {
        V::validate(self.0)
    }
}

impl<T: ?Sized> Untrusted<T> {
    /// Marks data behind a shared reference as untrusted, in place: for data the driver borrows
    /// from the kernel (a firmware file's bytes), which it cannot own.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let bytes: &Untrusted<[u8]> = Untrusted::new_untrusted_ref(firmware.data());
    /// ```
    pub(crate) fn new_untrusted_ref(value: &T) -> &Self {
        let ptr: *const T = value;
        // SAFETY: `Untrusted<T>` is `#[repr(transparent)]` over `T`, so both types have the same
        // layout and pointer metadata; the returned reference borrows `value` for its lifetime.
        unsafe { &*(ptr as *const Self) }
    }

    /// Validates the data behind a shared reference into a `V`, which may borrow from it.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let sections = file.validate_ref::<Sections>()?;
    /// ```
    pub(crate) fn validate_ref<'a, V: Validator<&'a Self>>(&'a self) -> Result<V, V::Err> {
        V::validate(&self.0)
    }

    /// Validates the data behind an exclusive reference into a `V`, which may borrow from it
    /// (and fix the data up in place, e.g. terminate a string).
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let name: Name<'_> = buffer.validate_mut::<Name<'_>>()?;
    /// ```
    #[cfg_attr(
        all(CONFIG_RUST, not(CONFIG_KUNIT)),
        expect(
            dead_code,
            reason = "part of the validation API (in-place validation, KUnit-tested); no driver input needs it yet"
        )
    )]
    pub(crate) fn validate_mut<'a, V: Validator<&'a mut Self>>(&'a mut self) -> Result<V, V::Err> {
        V::validate(&mut self.0)
    }

    /// Validates the data behind a shared reference against what the driver expects (`expected`
    /// is trusted: a sequence number, the firmware version asked for) into a `V`.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let image = file.validate_ref_against::<GspImage<'_>, _>((version, chipset))?;
    /// ```
    pub(crate) fn validate_ref_against<'a, V: Validator<(&'a Self, C)>, C>(
        &'a self,
        expected: C,
    ) -> Result<V, V::Err> {
        V::validate((&self.0, expected))
    }
}

/// An untrusted slice is a slice of untrusted elements: its length is the driver's (the buffer
/// it read into), its elements are not.
impl<T> Deref for Untrusted<[T]> {
    type Target = [Untrusted<T>];

    fn deref(&self) -> &[Untrusted<T>] {
        let ptr =
            core::ptr::slice_from_raw_parts(self.0.as_ptr().cast::<Untrusted<T>>(), self.0.len());
        // SAFETY: `Untrusted<T>` is `#[repr(transparent)]` over `T`, so `[Untrusted<T>]` and
        // `[T]` have the same layout; the pointer and length come from `self.0`, which the
        // returned reference borrows.
        unsafe { &*ptr }
    }
}

impl<T> DerefMut for Untrusted<[T]> {
    fn deref_mut(&mut self) -> &mut [Untrusted<T>] {
        let len = self.0.len();
        let ptr =
            core::ptr::slice_from_raw_parts_mut(self.0.as_mut_ptr().cast::<Untrusted<T>>(), len);
        // SAFETY: As in `deref`; the returned reference borrows `self.0` exclusively.
        unsafe { &mut *ptr }
    }
}

impl<T> Untrusted<[T]> {
    /// The elements `offset..offset + len`, still untrusted, or [`ReadError::OutOfBounds`] if
    /// they are not all inside the slice.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let payload: &Untrusted<[u8]> = message.subslice(offset, len)?;
    /// ```
    pub(crate) fn subslice(&self, offset: usize, len: usize) -> Result<&Untrusted<[T]>, ReadError> {
        let end = offset.checked_add(len).ok_or(ReadError::OutOfBounds)?;
        self.0
            .get(offset..end)
            .map(Untrusted::new_untrusted_ref)
            .ok_or(ReadError::OutOfBounds)
    }

    /// The elements `offset..offset + len`, exclusively, still untrusted.
    pub(crate) fn subslice_mut(
        &mut self,
        offset: usize,
        len: usize,
    ) -> Result<&mut Untrusted<[T]>, ReadError> {
        let end = offset.checked_add(len).ok_or(ReadError::OutOfBounds)?;
        let part = self.0.get_mut(offset..end).ok_or(ReadError::OutOfBounds)?;
        let ptr: *mut [T] = part;
        // SAFETY: `Untrusted<[T]>` is `#[repr(transparent)]` over `[T]` (same layout and
        // metadata); the returned reference borrows `part`, hence `self`, exclusively.
        Ok(unsafe { &mut *(ptr as *mut Untrusted<[T]>) })
    }
}

impl Untrusted<[u8]> {
    /// Clears the bytes and lends them, write-only in spirit, to the layer that copies device
    /// data into them (e.g. out of DMA memory): that layer sees zeros or what it wrote itself,
    /// never earlier untrusted data, and the bytes are untrusted again once the loan ends.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let mut element = Untrusted::new_untrusted(KVec::from_elem(0u8, 4096, GFP_KERNEL)?);
    /// memory.read(offset, element.overwrite())?;
    /// ```
    pub(crate) fn overwrite(&mut self) -> Fill<'_> {
        self.0.fill(0);
        Fill(&mut self.0)
    }
}

/// Zeroed bytes that are being filled with untrusted data (see [`Untrusted::overwrite`]).
pub(crate) struct Fill<'a>(&'a mut [u8]);

impl Fill<'_> {
    /// The bytes to write into.
    pub(crate) fn bytes(&mut self) -> &mut [u8] {
        self.0
    }
}

/// An untrusted kernel vector is an untrusted slice: the vector's length and allocation are the
/// driver's, its elements are not. (Kernel only: the parsing core validates slices.)
#[cfg(CONFIG_RUST)]
impl<T, A: kernel::alloc::Allocator> Deref for Untrusted<kernel::alloc::Vec<T, A>> {
    type Target = Untrusted<[T]>;

    fn deref(&self) -> &Untrusted<[T]> {
        Untrusted::new_untrusted_ref(self.0.as_slice())
    }
}

#[cfg(CONFIG_RUST)]
impl<T, A: kernel::alloc::Allocator> DerefMut for Untrusted<kernel::alloc::Vec<T, A>> {
    fn deref_mut(&mut self) -> &mut Untrusted<[T]> {
        let ptr: *mut [T] = self.0.as_mut_slice();
        // SAFETY: `Untrusted<[T]>` is `#[repr(transparent)]` over `[T]` (same layout and
        // metadata); the returned reference borrows the vector's elements exclusively.
        unsafe { &mut *(ptr as *mut Untrusted<[T]>) }
    }
}

#[cfg(CONFIG_RUST)]
impl<T: Copy + Default, A: kernel::alloc::Allocator> Untrusted<kernel::alloc::Vec<T, A>> {
    /// Appends untrusted elements, which stay untrusted: one fill and one copy of the whole
    /// slice (`Vec::extend_from_slice` clones element by element).
    pub(crate) fn extend_from_untrusted(
        &mut self,
        other: &Untrusted<[T]>,
        flags: kernel::alloc::Flags,
    ) -> Result<(), kernel::alloc::AllocError> {
        let at = self.0.len();
        self.0.resize(at + other.0.len(), T::default(), flags)?;
        if let Some(tail) = self.0.get_mut(at..) {
            tail.copy_from_slice(&other.0);
        }
        Ok(())
    }

    /// The storage, emptied, for reuse: nothing of the untrusted contents comes out.
    pub(crate) fn recycle(self) -> kernel::alloc::Vec<T, A> {
        let mut storage = self.0;
        storage.clear();
        storage
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_untrusted)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    /// A by-value validator.
    #[derive(Debug, PartialEq)]
    struct Even(u32);

    impl Validator<Untrusted<u32>> for Even {
        type Err = Error;

        fn validate(raw: u32) -> Result<Even> {
            if raw % 2 == 0 {
                Ok(Even(raw))
            } else {
                Err(EINVAL)
            }
        }
    }

    /// A validator of a single untrusted byte (what an untrusted slice's elements are).
    #[derive(Debug, PartialEq)]
    struct Digit(u8);

    impl Validator<&Untrusted<u8>> for Digit {
        type Err = Error;

        fn validate(raw: &u8) -> Result<Digit> {
            if raw.is_ascii_digit() {
                Ok(Digit(raw - b'0'))
            } else {
                Err(EINVAL)
            }
        }
    }

    /// A zero-copy validator: a length-prefixed name of at most 8 bytes, borrowed from the input.
    #[derive(Debug, PartialEq)]
    struct Name<'a>(&'a [u8]);

    impl<'a> Validator<&'a Untrusted<[u8]>> for Name<'a> {
        type Err = Error;

        fn validate(raw: &'a [u8]) -> Result<Name<'a>> {
            let (&len, rest) = raw.split_first().ok_or(EINVAL)?;
            let name = rest.get(..usize::from(len)).ok_or(EINVAL)?;
            if name.len() > 8 {
                return Err(EINVAL);
            }
            Ok(Name(name))
        }
    }

    /// An in-place validator: upper-cases ASCII letters and accepts nothing else.
    struct Shout<'a>(&'a [u8]);

    impl<'a> Validator<&'a mut Untrusted<[u8]>> for Shout<'a> {
        type Err = Error;

        fn validate(raw: &'a mut [u8]) -> Result<Shout<'a>> {
            if !raw.iter().all(u8::is_ascii_alphabetic) {
                return Err(EINVAL);
            }
            raw.make_ascii_uppercase();
            Ok(Shout(raw))
        }
    }

    /// A validator checking against what the driver expects: a counter that must be `expected`.
    #[derive(Debug, PartialEq)]
    struct Sequence(u32);

    impl<'a> Validator<(&'a Untrusted<u32>, u32)> for Sequence {
        type Err = u32;

        fn validate((raw, expected): (&'a u32, u32)) -> Result<Sequence, u32> {
            if *raw == expected {
                Ok(Sequence(*raw))
            } else {
                Err(*raw)
            }
        }
    }

    #[test]
    fn validate_by_value() {
        assert_eq!(
            Untrusted::new_untrusted(4u32).validate::<Even>(),
            Ok(Even(4))
        );
        assert_eq!(
            Untrusted::new_untrusted(3u32).validate::<Even>(),
            Err(EINVAL)
        );
    }

    #[test]
    fn validate_ref_output_borrows_the_input() {
        let good = [3u8, b'a', b'b', b'c', b'!'];
        let raw = Untrusted::new_untrusted_ref(&good[..]);
        let name = raw.validate_ref::<Name<'_>>();
        assert_eq!(name, Ok(Name(&good[1..4])));
        // Zero-copy: the name points into the validated bytes.
        assert_eq!(name.map(|n| n.0.as_ptr()), Ok(good[1..].as_ptr()));
        let bad = [9u8, 0, 0];
        assert_eq!(
            Untrusted::new_untrusted_ref(&bad[..]).validate_ref::<Name<'_>>(),
            Err(EINVAL)
        );
        assert_eq!(
            Untrusted::new_untrusted_ref(&[][..]).validate_ref::<Name<'_>>(),
            Err(EINVAL)
        );
    }

    #[test]
    fn validate_mut_fixes_up_in_place() {
        let mut raw = Untrusted::new_untrusted(*b"nova");
        let shout = (&mut raw as &mut Untrusted<[u8]>).validate_mut::<Shout<'_>>();
        assert_eq!(shout.map(|s| s.0 == b"NOVA"), Ok(true));
        let mut raw = Untrusted::new_untrusted(*b"n0va");
        let shout = (&mut raw as &mut Untrusted<[u8]>).validate_mut::<Shout<'_>>();
        assert!(shout.is_err());
    }

    #[test]
    fn validate_ref_against_checks_what_the_driver_expects() {
        let raw = Untrusted::new_untrusted(7u32);
        assert_eq!(raw.validate_ref_against::<Sequence, _>(7), Ok(Sequence(7)));
        // The error type carries the raw value, for the log line.
        assert_eq!(raw.validate_ref_against::<Sequence, _>(8), Err(7));
    }

    #[test]
    fn a_slice_gives_untrusted_elements() {
        let data = *b"12x";
        let raw = Untrusted::new_untrusted_ref(&data[..]);
        // The length is the driver's; each element still needs a validator.
        assert_eq!(raw.len(), 3);
        let one: &Untrusted<u8> = &raw[1];
        assert_eq!(one.validate_ref::<Digit>(), Ok(Digit(2)));
        assert_eq!(raw[2].validate_ref::<Digit>(), Err(EINVAL));
        assert!(raw.get(3).is_none());
        let digits = raw
            .iter()
            .filter(|b| b.validate_ref::<Digit>().is_ok())
            .count();
        assert_eq!(digits, 2);
    }

    #[test]
    fn subslice_checks_bounds() {
        let bytes = [4u8, 1, 2, 3, 4];
        let raw = Untrusted::new_untrusted_ref(&bytes[..]);
        assert_eq!(raw.subslice(1, 2).map(|s| s.len()), Ok(2));
        assert!(raw.subslice(4, 2).is_err());
        assert!(raw.subslice(usize::MAX, 2).is_err());
        assert_eq!(raw.subslice(5, 0).map(|s| s.len()), Ok(0));
        // A validator takes the sub-slice as it takes any untrusted bytes.
        assert!(
            raw.subslice(0, 5)
                .map(|s| s.validate_ref::<Name<'_>>().is_ok())
                == Ok(true)
        );
    }

    #[test]
    fn subslice_mut_checks_bounds_and_stays_untrusted() {
        let mut raw = Untrusted::new_untrusted(*b"0123");
        let bytes: &mut Untrusted<[u8]> = &mut raw;
        assert!(bytes.subslice_mut(3, 2).is_err());
        assert!(bytes.subslice_mut(usize::MAX, 2).is_err());
        let tail = bytes.subslice_mut(2, 2);
        assert_eq!(tail.map(|t| t.len()), Ok(2));
        let mut fill = match bytes.subslice_mut(2, 2) {
            Ok(tail) => tail.overwrite(),
            Err(_) => return,
        };
        fill.bytes().copy_from_slice(b"ab");
        let bytes: &Untrusted<[u8]> = &raw;
        // Only the sub-slice was overwritten.
        assert_eq!(bytes[1].validate_ref::<Digit>(), Ok(Digit(1)));
        assert_eq!(bytes[2].validate_ref::<Digit>(), Err(EINVAL));
    }

    #[test]
    fn a_mutable_slice_gives_untrusted_elements() {
        let mut raw = Untrusted::new_untrusted(*b"12");
        let bytes: &mut Untrusted<[u8]> = &mut raw;
        let elements: &mut [Untrusted<u8>] = bytes;
        // An element can be replaced by other untrusted data, not read.
        elements[0] = Untrusted::new_untrusted(b'7');
        let bytes: &Untrusted<[u8]> = &raw;
        assert_eq!(bytes[0].validate_ref::<Digit>(), Ok(Digit(7)));
        assert_eq!(bytes[1].validate_ref::<Digit>(), Ok(Digit(2)));
    }

    #[test]
    fn overwrite_lends_zeroed_bytes() {
        let mut raw = Untrusted::new_untrusted(*b"secret");
        let mut fill = (&mut raw as &mut Untrusted<[u8]>).overwrite();
        // What was there before is not visible to the filling layer.
        assert!(fill.bytes().iter().all(|&b| b == 0));
        fill.bytes()[..2].copy_from_slice(b"4x");
        let raw: &Untrusted<[u8]> = &raw;
        assert_eq!(
            raw.validate_ref::<Name<'_>>().map(|n| n.0.len()),
            Err(EINVAL)
        );
        assert_eq!(raw[0].validate_ref::<Digit>(), Ok(Digit(4)));
    }

    #[test]
    fn a_kernel_vector_is_an_untrusted_slice() -> Result {
        let mut v = KVec::new();
        v.extend_from_slice(&[2u8, b'o', b'k'], GFP_KERNEL)?;
        let mut raw = Untrusted::new_untrusted(v);
        let bytes: &Untrusted<[u8]> = &raw;
        assert_eq!(bytes.len(), 3);
        assert_eq!(
            bytes.validate_ref::<Name<'_>>().map(|n| n.0 == b"ok"),
            Ok(true)
        );
        let more = Untrusted::new_untrusted_ref(&b"!"[..]);
        raw.extend_from_untrusted(more, GFP_KERNEL)?;
        assert_eq!(raw.len(), 4);
        let bytes: &mut Untrusted<[u8]> = &mut raw;
        assert!(bytes.validate_mut::<Shout<'_>>().is_err());
        Ok(())
    }
}
