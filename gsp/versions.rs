// SPDX-License-Identifier: GPL-2.0

//! The list of GSP firmware versions, and the macros that expand versioned code over it.
//!
//! Part of the parsing core (see [`crate::untrusted`]): the host build (`fuzz/`) expands the
//! same versioned code from the same list.

/// The GSP firmware versions the interface is generated for, oldest first: the one list.
/// Calls `$callback!` with the list in brackets, followed by `$args`.
macro_rules! gsp_versions {
    ($callback:ident { $($args:tt)* }) => {
        $callback! { [r535_113_01, r570_144] $($args)* }
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
