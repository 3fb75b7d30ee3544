// SPDX-License-Identifier: GPL-2.0

//! The macro's arguments: the version list and the optional bindings path.

use proc_macro2::TokenStream;
use syn::{
    parse::{
        Parse,
        ParseStream, //
    },
    Ident,
    Path,
    Token, //
};

/// One firmware version: its identifier (`r570_144`) and its numeric components (570, 144).
pub(crate) struct Version {
    pub(crate) ident: Ident,
    pub(crate) parts: Vec<u32>,
}

impl Version {
    /// The dotted name, as in firmware file names (`570.144`).
    ///
    /// Made from the identifier's text, so that components keep their width (`535.113.01`).
    pub(crate) fn dotted(&self) -> String {
        self.ident.to_string()[1..].replace('_', ".")
    }

    fn parse_ident(ident: Ident) -> syn::Result<Version> {
        let name = ident.to_string();
        let digits = name.strip_prefix('r').ok_or_else(|| {
            syn::Error::new(
                ident.span(),
                format!("version `{name}` must look like r570_144"),
            )
        })?;
        let parts: Result<Vec<u32>, _> = digits.split('_').map(str::parse::<u32>).collect();
        match parts {
            Ok(parts) if !parts.is_empty() => Ok(Version { ident, parts }),
            _ => Err(syn::Error::new(
                ident.span(),
                format!("version `{name}` must look like r570_144"),
            )),
        }
    }
}

/// Parsed `#[versions(...)]` arguments.
pub(crate) struct Args {
    pub(crate) versions: Vec<Version>,
    pub(crate) bindings: Option<Path>,
}

impl Args {
    /// Position of `ident` in the version list.
    pub(crate) fn index_of(&self, ident: &Ident) -> syn::Result<usize> {
        self.versions
            .iter()
            .position(|v| v.ident == *ident)
            .ok_or_else(|| {
                let known: Vec<String> =
                    self.versions.iter().map(|v| v.ident.to_string()).collect();
                syn::Error::new(
                    ident.span(),
                    format!(
                        "unknown version `{ident}`; expected one of: {}",
                        known.join(", ")
                    ),
                )
            })
    }
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut versions: Vec<Version> = Vec::new();
        while !input.is_empty() && !input.peek(Token![;]) {
            let v = Version::parse_ident(input.parse()?)?;
            if let Some(last) = versions.last() {
                if v.parts <= last.parts {
                    return Err(syn::Error::new(
                        v.ident.span(),
                        format!(
                            "versions must be listed oldest first, without repeats: `{}` after `{}`",
                            v.ident, last.ident
                        ),
                    ));
                }
            }
            versions.push(v);
            if !input.is_empty() && !input.peek(Token![;]) {
                input.parse::<Token![,]>()?;
            }
        }
        if versions.is_empty() {
            return Err(syn::Error::new(
                input.span(),
                "expected at least one version, e.g. #[versions(r535_113_01, r570_144)]",
            ));
        }
        let mut bindings = None;
        if input.peek(Token![;]) {
            input.parse::<Token![;]>()?;
            let key: Ident = input.parse()?;
            if key != "bindings" {
                return Err(syn::Error::new(key.span(), "expected `bindings = PATH`"));
            }
            input.parse::<Token![=]>()?;
            bindings = Some(input.parse()?);
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the bindings path"));
            }
        }
        Ok(Args { versions, bindings })
    }
}

/// Parses the attribute's tokens.
pub(crate) fn parse(attr: TokenStream) -> syn::Result<Args> {
    syn::parse2(attr)
}
