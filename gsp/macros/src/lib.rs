// SPDX-License-Identifier: GPL-2.0

//! `nova_versions`: one copy of the annotated code per GSP firmware version.
//!
//! The GSP firmware interface changes from release to release. Generic code is written once,
//! with the parts that differ between versions marked by conditions, and this macro expands it
//! into one module per supported version; the copy to use is picked at run time from the
//! firmware loaded (`FwVersion::with`, generated from the version list, matches on the version
//! and enters code generic over the version's `Interface`).
//!
//! # Use
//!
//! ```text
//! #[nova_versions::versions(r535_113_01, r570_144; bindings = crate::gsp::fw)]
//! pub(crate) mod rpc {
//!     pub(crate) struct Info {
//!         pub(crate) a: u32,
//!         #[ver(V >= r570_144)]
//!         pub(crate) b: u32,
//!     }
//!
//!     pub(crate) fn encode(out: &mut fw::Msg) {
//!         out.a = 1;
//!         #[ver(V >= r570_144)]
//!         out.b = 2;
//!     }
//! }
//! ```
//!
//! expands to `mod rpc { pub(crate) mod r535_113_01 { ... } pub(crate) mod r570_144 { ... } }`,
//! where each copy:
//! - keeps only the elements whose `#[ver(...)]` condition holds for its version (and drops the
//!   `ver` attributes of those it keeps);
//! - has `fw` naming the version's bindings module (`crate::gsp::fw::r570_144 as fw`) when
//!   `bindings = PATH` is given;
//! - has `pub(crate) const VERSION: &str` set to the dotted version (`"570.144"`);
//! - sees paths starting with `super` rewritten one level up, so they mean what they meant in
//!   the annotated module, visibilities included (`pub(super)` becomes `pub(in super::super)`);
//!   in modules nested in the annotated one, `super` is left as it is;
//! - reads `V` between two path segments as its own version: `super::commands::V::encode` (or
//!   `use super::commands::{V::encode}`) is the same version's copy of another versioned
//!   module. A first segment `V` is not the version (`V::N` of a generic parameter `V`, a crate
//!   `V`), nor is a last one (an item named `V`); `a::V::<T>::b` is an error. An item named `V`
//!   that has items of its own is reached through an alias (`use a::V as W;`, then `W::b`).
//!
//! # Macro invocations
//!
//! The tokens of a macro invocation (`dev_err!(...)`, `format!(...)`, an item-making macro)
//! cannot be parsed before the macro runs, so inside them the copy is rewritten token by token,
//! where the tokens are unambiguous: `super` starting a path (`super::x`) and the visibilities
//! `pub(super)` and `pub(in super...)` move up as above (except inside a `mod name { ... }`
//! written among the tokens), and `V` between two path segments is the version. Any other
//! `super` there, and any `#[ver]`, is a compile error: `#[ver]` goes on the whole invocation
//! instead, where it is a statement or item.
//!
//! # Conditions
//!
//! `V <op> version` with `op` one of `==`, `!=`, `<`, `<=`, `>`, `>=` (versions compare in the
//! order they are listed, which must be oldest first), and `any(c, ...)`, `all(c, ...)`,
//! `not(c)`.
//!
//! `#[ver]` may be put on: items (in the module and in nested modules), impl and trait items,
//! struct fields, enum variants, statements, match arms and fields of struct expressions.
//! Anywhere else it is a compile error, as are unknown versions and malformed conditions.
//!
//! # Adding a firmware version
//!
//! In nova_core, for a version `r580_65` (580.65):
//! 1. Its header set: `gsp/fw/r580_65/nvrm.h`, with the same C names as the others and static
//!    asserts pinning every layout (`Kbuild` runs bindgen on every `gsp/fw/r*/nvrm.h`).
//! 2. One entry in the version list, `gsp_version_table!` in `gsp/versions.rs`:
//!    `(r580_65, R580_65, "580.65", 580, Turing | ... )`. `FwVersion` (file names, the
//!    `gsp_version` parameter, the chips it supports), the bindings modules, every versioned
//!    module, the version's `Interface` implementation and the dispatch into it
//!    (`FwVersion::with` in `gsp/interface.rs`, `AnyGsp` in `gsp/running.rs`) are generated
//!    from that list (and the host build of the parsing core in `fuzz/` expands the same
//!    list).
//! 3. `#[ver(...)]` conditions where its interface differs, and the KUnit layout tests of the
//!    structures that changed.
//! 4. The emulated GSP's own wire definitions for it (`emu/src/gsp/wire.rs`), so that the tests
//!    can boot it.
//!
//! The macro itself needs no change.

extern crate proc_macro;

mod cond;
mod expand;
mod filter;
mod tokens;
mod versions;

/// Expands the annotated inline module into one module per firmware version; see the crate
/// documentation.
#[proc_macro_attribute]
pub fn versions(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    match expand::versions(attr.into(), item.into()) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}
