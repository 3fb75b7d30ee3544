// SPDX-License-Identifier: GPL-2.0

//! The list of GSP firmware versions, and what is generated from it: [`FwVersion`], the
//! bindings modules (`gsp/fw.rs`), every versioned module and the table of interface
//! implementations (`gsp.rs`).
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

    /// Looks a version up by its major number.
    pub(crate) fn from_major(major: u32) -> Option<FwVersion> {
        Self::ALL.iter().copied().find(|v| v.major() == major)
    }
}

impl fmt::Display for FwVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
