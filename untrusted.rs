// SPDX-License-Identifier: GPL-2.0

//! Untrusted data and its validation.
//!
//! Everything the device, a firmware file or the GSP tells the driver enters as [`Untrusted<T>`].
//! An `Untrusted<T>` gives no access to its `T` except through three explicit, greppable escape
//! hatches ([`Untrusted::untrusted`], [`Untrusted::untrusted_mut`] and
//! [`Untrusted::into_inner_untrusted`]). The normal way out is a [`Validator`]: a type whose
//! `validate` function checks the raw data and turns it into a trusted value. Keeping every check
//! of a structure in the `Validator` impl next to the type it produces lets a reviewer find all
//! validation of that structure in one place.
//!
//! Rules for contributors:
//! - Read device, firmware and shared-memory data into `Untrusted` at the lowest layer.
//! - Use the escape hatches inside `Validator` impls. Anywhere else, the line carries a comment
//!   `// UNTRUSTED: <why this is fine>`; `make audit-untrusted` lists the ones that do not.
//! - Keep a Validator's logic in the parsing core: plain Rust on `core` and `zerocopy`, no kernel
//!   types, so that it also compiles for the host and is fuzzed there (`fuzz/`). This file is
//!   part of the core.
//!
//! # Examples
//!
//! ```ignore
//! use crate::untrusted::{Untrusted, Validator};
//!
//! struct Even;
//!
//! impl Validator for Even {
//!     type Input = u32;
//!     type Output = u32;
//!     type Err = Error;
//!
//!     fn validate(raw: &Untrusted<u32>) -> Result<u32> {
//!         let v = *raw.untrusted();
//!         if v % 2 == 0 { Ok(v) } else { Err(EINVAL) }
//!     }
//! }
//!
//! assert_eq!(Untrusted::new_untrusted(4u32).validate::<Even>(), Ok(4));
//! assert!(Untrusted::new_untrusted(3u32).validate::<Even>().is_err());
//! ```

use core::{
    mem::size_of,
    ops::{
        Deref,
        DerefMut,
        Index, //
    },
    slice::SliceIndex, //
};

use zerocopy::{
    FromBytes,
    Immutable,
    KnownLayout, //
};

/// Why a typed read of untrusted bytes failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReadError {
    /// The value does not lie entirely inside the buffer.
    OutOfBounds,
    /// The data is not aligned for the type read in place.
    Misaligned,
}

/// A value that has not been validated yet.
///
/// `#[repr(transparent)]`: an `Untrusted<T>` has the layout of `T`, so references to untrusted
/// data can be made in place (see [`Untrusted::new_untrusted_ref`]) without copying.
#[repr(transparent)]
#[derive(Clone, Copy, Default)]
pub(crate) struct Untrusted<T: ?Sized>(T);

/// Checks untrusted data and produces a trusted value from it.
///
/// Implement it on a marker type, or on the output type itself, next to the type it produces.
///
/// # Examples
///
/// ```ignore
/// struct NonZero;
///
/// impl Validator for NonZero {
///     type Input = u32;
///     type Output = core::num::NonZeroU32;
///     type Err = Error;
///
///     fn validate(raw: &Untrusted<u32>) -> Result<Self::Output> {
///         core::num::NonZeroU32::new(*raw.untrusted()).ok_or(EINVAL)
///     }
/// }
/// ```
pub(crate) trait Validator {
    /// The raw data this validator reads.
    type Input: ?Sized;
    /// The trusted value it produces.
    type Output;
    /// The error it reports for bad input.
    type Err;

    /// Checks `untrusted` and returns the trusted value, or the reason it was rejected.
    fn validate(untrusted: &Untrusted<Self::Input>) -> Result<Self::Output, Self::Err>;
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

    /// Escape hatch: returns the raw value without validation.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let v = Untrusted::new_untrusted(5u8).into_inner_untrusted();
    /// assert_eq!(v, 5);
    /// ```
    pub(crate) fn into_inner_untrusted(self) -> T {
        self.0
    }
}

impl<T: ?Sized> Untrusted<T> {
    /// Marks data behind a shared reference as untrusted, in place.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let bytes: &[u8] = firmware.data();
    /// let bytes: &Untrusted<[u8]> = Untrusted::new_untrusted_ref(bytes);
    /// ```
    pub(crate) fn new_untrusted_ref(value: &T) -> &Self {
        let ptr: *const T = value;
        // SAFETY: `Untrusted<T>` is `#[repr(transparent)]` over `T`, so both types have the same
        // layout and pointer metadata; the returned reference borrows `value` for its lifetime.
        unsafe { &*(ptr as *const Self) }
    }

    /// Marks data behind a mutable reference as untrusted, in place.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let mut buf = [0u8; 16];
    /// let buf: &mut Untrusted<[u8]> = Untrusted::new_untrusted_mut(&mut buf[..]);
    /// ```
    pub(crate) fn new_untrusted_mut(value: &mut T) -> &mut Self {
        let ptr: *mut T = value;
        // SAFETY: `Untrusted<T>` is `#[repr(transparent)]` over `T`, so both types have the same
        // layout and pointer metadata; the returned reference borrows `value` exclusively for its
        // lifetime.
        unsafe { &mut *(ptr as *mut Self) }
    }

    /// Escape hatch: returns the raw data without validation.
    ///
    /// Use inside a [`Validator`]; anywhere else, say why on the same line.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let raw = Untrusted::new_untrusted(7u32);
    /// assert_eq!(*raw.untrusted(), 7);
    /// ```
    pub(crate) fn untrusted(&self) -> &T {
        &self.0
    }

    /// Escape hatch: returns the raw data mutably, without validation.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let mut raw = Untrusted::new_untrusted(7u32);
    /// *raw.untrusted_mut() = 8;
    /// ```
    pub(crate) fn untrusted_mut(&mut self) -> &mut T {
        &mut self.0
    }

    /// Validates the data with the validator `V`.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let spec = Untrusted::new_untrusted(boot0).validate::<SpecValidator>()?;
    /// ```
    pub(crate) fn validate<V: Validator<Input = T>>(&self) -> Result<V::Output, V::Err> {
        V::validate(self)
    }

    /// Validates the data with a closure, for small ad-hoc checks that do not deserve a
    /// [`Validator`] type. The closure is the validation: it sees the raw data and decides.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let len = raw_len.validate_with(|&l: &u32| if l <= 64 { Ok(l) } else { Err(EINVAL) })?;
    /// ```
    pub(crate) fn validate_with<R, E>(
        &self,
        check: impl FnOnce(&T) -> Result<R, E>,
    ) -> Result<R, E> {
        check(&self.0)
    }
}

impl Untrusted<[u8]> {
    /// Validates untrusted bytes with a closure, for small ad-hoc checks.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let magic = bytes.validate_bytes(|b| b.get(..4).ok_or(EINVAL).map(|m| m == b"\x7fELF"))?;
    /// ```
    pub(crate) fn validate_bytes<R, E>(
        &self,
        check: impl FnOnce(&[u8]) -> Result<R, E>,
    ) -> Result<R, E> {
        check(&self.0)
    }

    /// Reads a `T` in place at `offset`, bounds- and alignment-checked.
    ///
    /// Fails with [`ReadError::OutOfBounds`] if `T` does not fit inside the buffer at `offset`,
    /// and with [`ReadError::Misaligned`] if the data at `offset` is not aligned for `T`.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let hdr: &Untrusted<Elf64Hdr> = file.read_ref::<Elf64Hdr>(0)?;
    /// ```
    pub(crate) fn read_ref<T: FromBytes + KnownLayout + Immutable>(
        &self,
        offset: usize,
    ) -> Result<&Untrusted<T>, ReadError> {
        let bytes = self.byte_range(offset, size_of::<T>())?;
        T::ref_from_bytes(bytes)
            .map(Untrusted::new_untrusted_ref)
            .map_err(|_| ReadError::Misaligned)
    }

    /// Copies a `T` out of the buffer at `offset`, bounds-checked, at any alignment.
    ///
    /// Fails with [`ReadError::OutOfBounds`] if `T` does not fit inside the buffer at `offset`.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let magic: Untrusted<u32> = file.read_copy::<u32>(0)?;
    /// ```
    pub(crate) fn read_copy<T: FromBytes>(&self, offset: usize) -> Result<Untrusted<T>, ReadError> {
        let bytes = self.byte_range(offset, size_of::<T>())?;
        T::read_from_bytes(bytes)
            .map(Untrusted::new_untrusted)
            .map_err(|_| ReadError::OutOfBounds)
    }

    /// Returns the `len` bytes at `offset`, or [`ReadError::OutOfBounds`] if they are not all
    /// inside the buffer.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let section: &Untrusted<[u8]> = file.subslice(offset, size)?;
    /// ```
    pub(crate) fn subslice(
        &self,
        offset: usize,
        len: usize,
    ) -> Result<&Untrusted<[u8]>, ReadError> {
        self.byte_range(offset, len)
            .map(Untrusted::new_untrusted_ref)
    }

    fn byte_range(&self, offset: usize, len: usize) -> Result<&[u8], ReadError> {
        let end = offset.checked_add(len).ok_or(ReadError::OutOfBounds)?;
        self.0.get(offset..end).ok_or(ReadError::OutOfBounds)
    }

    /// Whether the untrusted bytes start with the trusted `prefix`.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// assert!(Untrusted::new_untrusted_ref(&b"\x7fELF\x02"[..]).starts_with(b"\x7fELF"));
    /// ```
    pub(crate) fn starts_with(&self, prefix: &[u8]) -> bool {
        self.0.starts_with(prefix)
    }
}

impl<T> Untrusted<[T]> {
    /// Number of elements; the length of a slice is known to the driver, not chosen by the data.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// assert_eq!(Untrusted::new_untrusted_ref(&[1u8, 2, 3][..]).len(), 3);
    /// ```
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the slice has no elements.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// assert!(Untrusted::new_untrusted_ref(&[0u8; 0][..]).is_empty());
    /// ```
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Returns the element or sub-slice at `index`, still untrusted, or `None` if out of range.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// let words = Untrusted::new_untrusted_ref(&[1u32, 2][..]);
    /// assert!(words.get(2).is_none());
    /// ```
    pub(crate) fn get<I: SliceIndex<[T]>>(&self, index: I) -> Option<&Untrusted<I::Output>> {
        self.0.get(index).map(Untrusted::new_untrusted_ref)
    }

    /// Iterates over the elements, each still untrusted.
    ///
    /// # Examples
    ///
    /// ```ignore
    /// for word in words.iter() {
    ///     let w: &Untrusted<u32> = word;
    /// }
    /// ```
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Untrusted<T>> {
        self.0.iter().map(Untrusted::new_untrusted_ref)
    }
}

/// Indexing an untrusted slice gives untrusted elements or sub-slices.
///
/// Like slice indexing, an index out of range panics: use [`Untrusted::get`] for indices that
/// come from untrusted data.
impl<T, I: SliceIndex<[T]>> Index<I> for Untrusted<[T]> {
    type Output = Untrusted<I::Output>;

    fn index(&self, index: I) -> &Self::Output {
        Untrusted::new_untrusted_ref(&self.0[index])
    }
}

/// An untrusted owner of data (e.g. `KVec<u8>`) derefs to the untrusted data it owns.
impl<T: Deref> Deref for Untrusted<T> {
    type Target = Untrusted<T::Target>;

    fn deref(&self) -> &Self::Target {
        Untrusted::new_untrusted_ref(self.0.deref())
    }
}

impl<T: DerefMut> DerefMut for Untrusted<T> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        Untrusted::new_untrusted_mut(self.0.deref_mut())
    }
}

/// Untrusted bytes compare with trusted bytes without an escape hatch: the comparison is the
/// check.
impl PartialEq<[u8]> for Untrusted<[u8]> {
    fn eq(&self, other: &[u8]) -> bool {
        &self.0 == other
    }
}

impl<const N: usize> PartialEq<[u8; N]> for Untrusted<[u8]> {
    fn eq(&self, other: &[u8; N]) -> bool {
        self.0 == other[..]
    }
}

impl PartialEq<&[u8]> for Untrusted<[u8]> {
    fn eq(&self, other: &&[u8]) -> bool {
        &self.0 == *other
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_untrusted)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    struct Even;

    impl Validator for Even {
        type Input = u32;
        type Output = u32;
        type Err = Error;

        fn validate(raw: &Untrusted<u32>) -> Result<u32> {
            let v = *raw.untrusted();
            if v % 2 == 0 {
                Ok(v)
            } else {
                Err(EINVAL)
            }
        }
    }

    /// A validator over bytes: a length-prefixed string of at most 8 bytes.
    struct ShortString;

    impl Validator for ShortString {
        type Input = [u8];
        type Output = usize;
        type Err = Error;

        fn validate(raw: &Untrusted<[u8]>) -> Result<usize> {
            let bytes = raw.untrusted();
            let len = usize::from(*bytes.first().ok_or(EINVAL)?);
            if len > 8 || bytes.len() < 1 + len {
                return Err(EINVAL);
            }
            Ok(len)
        }
    }

    #[repr(C)]
    #[derive(
        Clone,
        Copy,
        FromBytes,
        zerocopy_derive::KnownLayout,
        zerocopy_derive::Immutable, //
    )]
    struct Pair {
        a: u32,
        b: u32,
    }

    #[test]
    fn validator_accepts_good_value() {
        assert_eq!(Untrusted::new_untrusted(4u32).validate::<Even>(), Ok(4));
    }

    #[test]
    fn validator_rejects_bad_value() {
        assert_eq!(
            Untrusted::new_untrusted(3u32).validate::<Even>(),
            Err(EINVAL)
        );
    }

    #[test]
    fn validator_over_unsized_bytes() {
        let good = [3u8, b'a', b'b', b'c'];
        let bad = [9u8, 0, 0];
        assert_eq!(
            Untrusted::new_untrusted_ref(&good[..]).validate::<ShortString>(),
            Ok(3)
        );
        assert_eq!(
            Untrusted::new_untrusted_ref(&bad[..]).validate::<ShortString>(),
            Err(EINVAL)
        );
        assert_eq!(
            Untrusted::new_untrusted_ref(&[][..]).validate::<ShortString>(),
            Err(EINVAL)
        );
    }

    #[test]
    fn escape_hatches_return_the_raw_value() {
        let mut raw = Untrusted::new_untrusted(7u32);
        assert_eq!(*raw.untrusted(), 7);
        *raw.untrusted_mut() = 9;
        assert_eq!(raw.into_inner_untrusted(), 9);
    }

    #[test]
    fn ref_and_mut_constructors_work_in_place() {
        let mut buf = [1u8, 2, 3];
        {
            let raw = Untrusted::new_untrusted_mut(&mut buf[..]);
            raw.untrusted_mut()[0] = 5;
        }
        let raw = Untrusted::new_untrusted_ref(&buf[..]);
        assert_eq!(raw.untrusted().as_ptr(), buf.as_ptr());
        assert_eq!(buf[0], 5);
    }

    #[test]
    fn validate_with_closure_decides() {
        let raw = Untrusted::new_untrusted(100u32);
        let small = raw.validate_with(|&v| if v < 64 { Ok(v) } else { Err(ERANGE) });
        assert_eq!(small, Err(ERANGE));
        let any = raw.validate_with(|&v| Ok::<u32, Error>(v));
        assert_eq!(any, Ok(100));
    }

    #[test]
    fn validate_bytes_closure_decides() {
        let raw = Untrusted::new_untrusted_ref(&b"\x7fELF"[..]);
        assert_eq!(raw.validate_bytes(|b| Ok::<usize, Error>(b.len())), Ok(4));
        assert_eq!(
            raw.validate_bytes(|_| Err::<(), Error>(EINVAL)),
            Err(EINVAL)
        );
    }

    #[test]
    fn index_gives_untrusted_elements_and_ranges() {
        let data = [10u32, 20, 30];
        let raw = Untrusted::new_untrusted_ref(&data[..]);
        let one: &Untrusted<u32> = &raw[1];
        assert_eq!(*one.untrusted(), 20);
        let tail: &Untrusted<[u32]> = &raw[1..];
        assert_eq!(tail.len(), 2);
    }

    #[test]
    fn get_out_of_range_is_none() {
        let data = [10u32, 20];
        let raw = Untrusted::new_untrusted_ref(&data[..]);
        assert!(raw.get(2).is_none());
        assert!(raw.get(1..3).is_none());
        assert!(raw.get(0).is_some());
    }

    #[test]
    fn len_and_is_empty() {
        assert_eq!(Untrusted::new_untrusted_ref(&[1u8, 2, 3][..]).len(), 3);
        assert!(Untrusted::new_untrusted_ref(&[0u8; 0][..]).is_empty());
    }

    #[test]
    fn iter_yields_every_element_untrusted() {
        let data = [1u32, 2, 3];
        let raw = Untrusted::new_untrusted_ref(&data[..]);
        let mut sum = 0;
        for item in raw.iter() {
            sum += item.validate::<Even>().unwrap_or(0);
        }
        assert_eq!(sum, 2);
        assert_eq!(raw.iter().count(), 3);
    }

    #[test]
    fn deref_of_owned_bytes_is_untrusted_slice() -> Result {
        let mut v = KVec::new();
        v.extend_from_slice(&[1u8, 2, 3, 4], GFP_KERNEL)?;
        let raw = Untrusted::new_untrusted(v);
        let bytes: &Untrusted<[u8]> = &raw;
        assert_eq!(bytes.len(), 4);
        assert!(*bytes == [1u8, 2, 3, 4]);
        Ok(())
    }

    #[test]
    fn deref_mut_of_owned_bytes_is_untrusted_slice() -> Result {
        let mut v = KVec::new();
        v.extend_from_slice(&[1u8, 2, 3], GFP_KERNEL)?;
        let mut raw = Untrusted::new_untrusted(v);
        let bytes: &mut Untrusted<[u8]> = &mut raw;
        bytes.untrusted_mut()[2] = 9;
        assert!(*raw == [1u8, 2, 9]);
        Ok(())
    }

    #[test]
    #[allow(
        clippy::op_ref,
        reason = "the comparison with a borrowed slice is under test"
    )]
    fn bytes_compare_with_trusted_bytes() {
        let raw = Untrusted::new_untrusted_ref(&b"570.144"[..]);
        assert!(*raw == *b"570.144");
        assert!(*raw != *b"535.113.01");
        assert!(*raw == &b"570.144"[..]);
        assert!(raw.starts_with(b"570"));
        assert!(!raw.starts_with(b"5701234567"));
    }

    #[test]
    fn read_ref_in_bounds_and_aligned() -> Result {
        let words = [0x11u32, 0x22, 0x33];
        // SAFETY: `u32` has no padding and every byte pattern is valid for `u8`.
        let bytes = unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 12) };
        let raw = Untrusted::new_untrusted_ref(bytes);
        let pair = raw.read_ref::<Pair>(4).map_err(|_| EINVAL)?;
        assert_eq!(pair.untrusted().a, 0x22);
        assert_eq!(pair.untrusted().b, 0x33);
        Ok(())
    }

    #[test]
    fn read_ref_rejects_out_of_bounds() {
        let words = [0u32; 3];
        // SAFETY: `u32` has no padding and every byte pattern is valid for `u8`.
        let bytes = unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 12) };
        let raw = Untrusted::new_untrusted_ref(bytes);
        assert_eq!(
            raw.read_ref::<Pair>(8).map(|_| ()),
            Err(ReadError::OutOfBounds)
        );
        assert_eq!(
            raw.read_ref::<Pair>(usize::MAX).map(|_| ()),
            Err(ReadError::OutOfBounds)
        );
    }

    #[test]
    fn read_ref_rejects_misaligned() {
        let words = [0u32; 4];
        // SAFETY: `u32` has no padding and every byte pattern is valid for `u8`.
        let bytes = unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<u8>(), 16) };
        let raw = Untrusted::new_untrusted_ref(bytes);
        assert_eq!(
            raw.read_ref::<Pair>(1).map(|_| ()),
            Err(ReadError::Misaligned)
        );
    }

    #[test]
    fn read_copy_at_any_alignment() -> Result {
        let bytes = [0u8, 0x78, 0x56, 0x34, 0x12, 0];
        let raw = Untrusted::new_untrusted_ref(&bytes[..]);
        assert_eq!(
            raw.read_copy::<u32>(1)
                .map_err(|_| EINVAL)?
                .into_inner_untrusted(),
            0x1234_5678
        );
        assert_eq!(
            raw.read_copy::<u32>(3).map(|_| ()),
            Err(ReadError::OutOfBounds)
        );
        Ok(())
    }

    #[test]
    fn subslice_checks_bounds() -> Result {
        let bytes = [1u8, 2, 3, 4];
        let raw = Untrusted::new_untrusted_ref(&bytes[..]);
        assert!(*raw.subslice(1, 2).map_err(|_| EINVAL)? == [2u8, 3]);
        assert!(raw.subslice(3, 2).is_err());
        assert!(raw.subslice(usize::MAX, 2).is_err());
        assert_eq!(raw.subslice(4, 0).map_err(|_| EINVAL)?.len(), 0);
        Ok(())
    }
}
