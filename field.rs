// SPDX-License-Identifier: GPL-2.0

//! Register fields that enumerate hardware values, as Rust enums: the conversions the kernel's
//! `register!` takes for a typed field (`rust/kernel/io/register.rs`, `bitfield.rs`: `=>` for a
//! field whose every value has a name, `?=>` for one that may read as a value with none).
//!
//! A value the device gives is untrusted input: a field read back through `?=>` is a `Result`
//! whose error, [`Unknown`], names the field and the value, never a panic.

use core::fmt;

/// A field read a value that names none of its variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Unknown {
    /// The register and field, as the log should name them.
    pub(crate) field: &'static str,
    /// The value read.
    pub(crate) raw: u32,
}

impl fmt::Display for Unknown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} reads {:#x}, which names no known value",
            self.field, self.raw
        )
    }
}

impl From<Unknown> for kernel::error::Error {
    fn from(_: Unknown) -> Self {
        kernel::error::code::EIO
    }
}

/// An enum of the named values of a `BITS`-bit field of a `u32` register, with the conversions
/// `?=>` needs: every variant into the field (checked at build time against the width), the
/// field's value into a variant or [`Unknown`].
///
/// ```ignore
/// field_enum! {
///     /// What the field means.
///     pub(crate) enum Size: 3 bits of "NV_PFALCON_FALCON_DMATRFCMD.size" {
///         Size256B = 6,
///     }
/// }
/// ```
macro_rules! field_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident: $bits:literal bits of $field:literal {
            $($(#[$vmeta:meta])* $variant:ident = $value:literal),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vmeta])* $variant = $value),+
        }

        impl ::core::convert::From<$name> for ::kernel::num::Bounded<u32, $bits> {
            fn from(value: $name) -> Self {
                match value {
                    $($name::$variant => ::kernel::num::Bounded::<u32, $bits>::new::<$value>()),+
                }
            }
        }

        impl ::core::convert::TryFrom<::kernel::num::Bounded<u32, $bits>> for $name {
            type Error = $crate::field::Unknown;

            fn try_from(
                raw: ::kernel::num::Bounded<u32, $bits>,
            ) -> ::core::result::Result<Self, $crate::field::Unknown> {
                match raw.get() {
                    $($value => Ok($name::$variant),)+
                    other => Err($crate::field::Unknown {
                        field: $field,
                        raw: other,
                    }),
                }
            }
        }
    };
}

/// An enum of the two values of a one-bit field, with the conversions `=>` needs: both ways,
/// infallibly (each value of the bit has its name).
macro_rules! bit_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(#[$zmeta:meta])* $zero:ident = 0,
            $(#[$ometa:meta])* $one:ident = 1 $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $(#[$zmeta])* $zero = 0,
            $(#[$ometa])* $one = 1,
        }

        impl ::core::convert::From<$name> for ::kernel::num::Bounded<u32, 1> {
            fn from(value: $name) -> Self {
                (value == $name::$one).into()
            }
        }

        impl ::core::convert::From<::kernel::num::Bounded<u32, 1>> for $name {
            fn from(raw: ::kernel::num::Bounded<u32, 1>) -> Self {
                if bool::from(raw) {
                    $name::$one
                } else {
                    $name::$zero
                }
            }
        }
    };
}

pub(crate) use bit_enum;
pub(crate) use field_enum;
