// SPDX-License-Identifier: GPL-2.0

//! The list of GSP firmware versions, and what is generated from it: [`FwVersion`], the
//! bindings modules (`gsp/fw.rs`), every versioned module (among them each version's
//! `Interface` implementation, `gsp/interface.rs`), and the matches on the version
//! (`FwVersion::with` in `gsp/interface.rs`, `AnyGsp` in `gsp/running.rs`).
//!
//! Part of the parsing core (see [`crate::untrusted`]): the host build (`fuzz/`) expands the
//! same versioned code from the same list.

use core::fmt;

use crate::chip::{
    Architecture,
    Chipset, //
};

/// The GSP firmware versions, oldest first: the one list. Each entry is the versioned modules'
/// name, the [`FwVersion`] variant, the version as in file names and `.fwversion`, the major
/// number the `gsp_version` module parameter takes, and the architectures NVIDIA released the
/// version for. Calls `$callback!` with the list in brackets, followed by `$args`.
macro_rules! gsp_version_table {
    ($callback:ident { $($args:tt)* }) => {
        $callback! {
            [
                (r535_113_01, R535_113_01, "535.113.01", 535, Turing | Ampere | Ada),
                (
                    r570_144,
                    R570_144,
                    "570.144",
                    570,
                    Turing | Ampere | Ada | Hopper | BlackwellGB10x | BlackwellGB20x
                ),
            ]
            $($args)*
        }
    };
}

/// Calls `$callback!` with the versioned modules' names of [`gsp_version_table!`], oldest
/// first, in brackets, followed by `$args`.
macro_rules! gsp_versions {
    ($callback:ident { $($args:tt)* }) => {
        gsp_version_table!(gsp_version_modules { $callback { $($args)* } });
    };
}

/// [`gsp_versions!`] once the table is known: keeps the module names.
macro_rules! gsp_version_modules {
    (
        [$(($v:ident, $($rest:tt)*)),* $(,)?]
        $callback:ident { $($args:tt)* }
    ) => {
        $callback! { [$($v),*] $($args)* }
    };
}

/// Expands a module into one copy per version of [`gsp_versions!`] (see `gsp/macros`), with
/// `fw` bound to that version's bindings.
macro_rules! gsp_versioned {
    ($($item:tt)*) => {
        gsp_versions!(gsp_versioned_for { $($item)* });
    };
}

/// [`gsp_versioned!`] once the version list is known.
macro_rules! gsp_versioned_for {
    ([$($v:ident),*] $(#[$attr:meta])* $vis:vis mod $name:ident { $($body:tt)* }) => {
        $(#[$attr])*
        #[nova_versions::versions($($v),*; bindings = crate::gsp::fw)]
        $vis mod $name { $($body)* }
    };
}

/// Generates [`FwVersion`] from the table.
macro_rules! fw_version {
    ([$(($v:ident, $V:ident, $name:literal, $major:literal, $($arch:ident)|+)),* $(,)?]) => {
        /// A GSP firmware release the driver supports (one per entry of the version list).
        #[derive(fmt::Debug, Copy, Clone, PartialEq, Eq)]
        pub(crate) enum FwVersion {
            $($V),*
        }

        impl FwVersion {
            /// Supported versions, oldest first, as the list has them.
            const OLDEST_FIRST: [FwVersion; [$(FwVersion::$V),*].len()] = [$(FwVersion::$V),*];

            /// The version as it appears in file names and in `.fwversion`.
            pub(crate) const fn name(self) -> &'static str {
                match self {
                    $(FwVersion::$V => $name),*
                }
            }

            /// The major number, as given to the `gsp_version` module parameter.
            pub(crate) const fn major(self) -> u32 {
                match self {
                    $(FwVersion::$V => $major),*
                }
            }

            /// Whether NVIDIA released this version for `chipset`.
            pub(crate) const fn supports(self, chipset: Chipset) -> bool {
                match self {
                    $(FwVersion::$V => matches!(chipset.arch(), $(Architecture::$arch)|+)),*
                }
            }
        }
    };
}

gsp_version_table!(fw_version {});

impl FwVersion {
    /// Supported versions, newest first (the order the probe tries them in).
    pub(crate) const ALL: &'static [FwVersion] = &Self::newest_first();

    const fn newest_first() -> [FwVersion; Self::OLDEST_FIRST.len()] {
        let mut out = Self::OLDEST_FIRST;
        let n = out.len();
        let mut i = 0;
        while i < n {
            out[i] = Self::OLDEST_FIRST[n - 1 - i];
            i += 1;
        }
        out
    }

    /// The version named `name` as in file names; a name not in the list fails the build where
    /// it is evaluated in a constant (each version's interface names its own).
    pub(crate) const fn named(name: &str) -> FwVersion {
        let mut i = 0;
        while i < Self::OLDEST_FIRST.len() {
            let v = Self::OLDEST_FIRST[i];
            if const_str_eq(v.name(), name) {
                return v;
            }
            i += 1;
        }
        panic!("not a version of the version list")
    }

    /// The version's name without its dots, as a number (570144 for 570.144): what the
    /// `gsp_version` module parameter takes where the major number alone names more than one
    /// version.
    pub(crate) const fn number(self) -> u32 {
        let name = self.name().as_bytes();
        let mut n = 0u32;
        let mut i = 0;
        while i < name.len() {
            if name[i] != b'.' {
                // A name of digits and dots, short enough for a u32: the constant check below
                // evaluates this for every version at build time.
                assert!(name[i].is_ascii_digit());
                n = n * 10 + (name[i] - b'0') as u32;
            }
            i += 1;
        }
        n
    }

    /// The version the `gsp_version` module parameter `param` names: its whole number
    /// ([`FwVersion::number`]), or its major number where no other version has that major.
    pub(crate) fn from_param(param: u32) -> Result<FwVersion, VersionParamError> {
        choose(Self::ALL, param, FwVersion::number, FwVersion::major)
    }
}

// Every version's whole number is its own, and no other version's major.
const _: () = {
    let all = FwVersion::OLDEST_FIRST;
    let mut i = 0;
    while i < all.len() {
        let mut j = 0;
        while j < all.len() {
            assert!(i == j || all[i].number() != all[j].number());
            assert!(all[i].number() != all[j].major());
            j += 1;
        }
        i += 1;
    }
};

/// Why the `gsp_version` module parameter names no version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VersionParamError {
    /// No version has this number or major number.
    Unknown(u32),
    /// More than one version has this major number: the whole number is needed.
    Ambiguous(u32),
}

impl fmt::Display for VersionParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            VersionParamError::Unknown(n) => write!(f, "gsp_version={n}: not a supported version")?,
            VersionParamError::Ambiguous(n) => write!(
                f,
                "gsp_version={n}: more than one supported version has that major number"
            )?,
        }
        f.write_str(" (supported:")?;
        for v in FwVersion::ALL {
            write!(f, " {} as {}", v, v.number())?;
            if FwVersion::from_param(v.major()) == Ok(*v) {
                write!(f, " or {}", v.major())?;
            }
            f.write_str(",")?;
        }
        f.write_str(" the major number only where it names one version)")
    }
}

/// The one of `versions` whose `number` is `param`, else the one whose `major` is `param`.
fn choose<T: Copy>(
    versions: &[T],
    param: u32,
    number: fn(T) -> u32,
    major: fn(T) -> u32,
) -> Result<T, VersionParamError> {
    if let Some(&v) = versions.iter().find(|&&v| number(v) == param) {
        return Ok(v);
    }
    let mut same_major = versions.iter().filter(|&&v| major(v) == param);
    match (same_major.next(), same_major.next()) {
        (Some(&v), None) => Ok(v),
        (Some(_), Some(_)) => Err(VersionParamError::Ambiguous(param)),
        (None, _) => Err(VersionParamError::Unknown(param)),
    }
}

/// Whether `a` and `b` are the same string, in a constant.
const fn const_str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl fmt::Display for FwVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_versions)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_named_by_its_number_or_its_major() {
        assert_eq!(FwVersion::R570_144.number(), 570144);
        assert_eq!(FwVersion::R535_113_01.number(), 53511301);
        for &v in FwVersion::ALL {
            assert_eq!(FwVersion::from_param(v.number()), Ok(v));
            // The major names the version where no other version has it.
            let shared = FwVersion::ALL
                .iter()
                .filter(|w| w.major() == v.major())
                .count();
            let by_major = if shared == 1 {
                Ok(v)
            } else {
                Err(VersionParamError::Ambiguous(v.major()))
            };
            assert_eq!(FwVersion::from_param(v.major()), by_major);
            assert_eq!(FwVersion::named(v.name()), v);
        }
        assert_eq!(
            FwVersion::from_param(580),
            Err(VersionParamError::Unknown(580))
        );
        assert_eq!(FwVersion::from_param(0), Err(VersionParamError::Unknown(0)));
    }

    /// Two releases of one major number: each is chosen by its whole number, neither by the
    /// major.
    #[test]
    fn two_releases_of_one_major_are_told_apart_by_their_numbers() {
        let list = [(570144, 570), (570172, 570), (53511301, 535)];
        let choose = |param| choose(&list, param, |v: (u32, u32)| v.0, |v: (u32, u32)| v.1);
        assert_eq!(choose(570172), Ok((570172, 570)));
        assert_eq!(choose(570144), Ok((570144, 570)));
        assert_eq!(choose(535), Ok((53511301, 535)));
        assert_eq!(choose(570), Err(VersionParamError::Ambiguous(570)));
        assert_eq!(choose(571), Err(VersionParamError::Unknown(571)));
    }
}
