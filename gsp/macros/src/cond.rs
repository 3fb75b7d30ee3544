// SPDX-License-Identifier: GPL-2.0

//! `#[ver(...)]` conditions: parsing and evaluation against one version.

use proc_macro2::Span;
use syn::{
    parse::{
        Parse,
        ParseStream, //
    },
    punctuated::Punctuated,
    Attribute,
    Ident,
    Token, //
};

use crate::versions::Args;

/// A comparison operator.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A parsed condition.
pub(crate) enum Cond {
    /// `V <op> version`.
    Cmp(Op, Ident),
    /// `any(c, ...)`: true if one is.
    Any(Vec<Cond>),
    /// `all(c, ...)`: true if all are.
    All(Vec<Cond>),
    /// `not(c)`.
    Not(Box<Cond>),
}

impl Parse for Cond {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let head: Ident = input.parse()?;
        if head == "V" {
            let op = if input.peek(Token![==]) {
                input.parse::<Token![==]>()?;
                Op::Eq
            } else if input.peek(Token![!=]) {
                input.parse::<Token![!=]>()?;
                Op::Ne
            } else if input.peek(Token![<=]) {
                input.parse::<Token![<=]>()?;
                Op::Le
            } else if input.peek(Token![>=]) {
                input.parse::<Token![>=]>()?;
                Op::Ge
            } else if input.peek(Token![<]) {
                input.parse::<Token![<]>()?;
                Op::Lt
            } else if input.peek(Token![>]) {
                input.parse::<Token![>]>()?;
                Op::Gt
            } else {
                return Err(
                    input.error("expected one of `==`, `!=`, `<`, `<=`, `>`, `>=` after `V`")
                );
            };
            return Ok(Cond::Cmp(op, input.parse()?));
        }
        let content;
        syn::parenthesized!(content in input);
        let list: Punctuated<Cond, Token![,]> = content.parse_terminated(Cond::parse, Token![,])?;
        let list: Vec<Cond> = list.into_iter().collect();
        match head.to_string().as_str() {
            "any" => Ok(Cond::Any(list)),
            "all" => Ok(Cond::All(list)),
            "not" => {
                let mut list = list;
                if list.len() != 1 {
                    return Err(syn::Error::new(
                        head.span(),
                        "`not` takes exactly one condition",
                    ));
                }
                Ok(Cond::Not(Box::new(list.remove(0))))
            }
            _ => Err(syn::Error::new(
                head.span(),
                "expected `V <op> version`, `any(...)`, `all(...)` or `not(...)`",
            )),
        }
    }
}

impl Cond {
    /// Whether the condition holds for the version at `current` in the list.
    pub(crate) fn eval(&self, args: &Args, current: usize) -> syn::Result<bool> {
        Ok(match self {
            Cond::Cmp(op, ident) => {
                let other = args.index_of(ident)?;
                match op {
                    Op::Eq => current == other,
                    Op::Ne => current != other,
                    Op::Lt => current < other,
                    Op::Le => current <= other,
                    Op::Gt => current > other,
                    Op::Ge => current >= other,
                }
            }
            Cond::Any(list) => {
                let mut any = false;
                for c in list {
                    any |= c.eval(args, current)?;
                }
                any
            }
            Cond::All(list) => {
                let mut all = true;
                for c in list {
                    all &= c.eval(args, current)?;
                }
                all
            }
            Cond::Not(c) => !c.eval(args, current)?,
        })
    }
}

/// Whether `attr` is a `#[ver(...)]` attribute.
pub(crate) fn is_ver(attr: &Attribute) -> bool {
    attr.path().is_ident("ver")
}

/// Evaluates and removes the `#[ver(...)]` attributes of an element; returns whether the element
/// stays in the copy for the version at `current`. Every condition is checked (an unknown
/// version is an error even in a copy that drops the element).
pub(crate) fn keep(attrs: &mut Vec<Attribute>, args: &Args, current: usize) -> syn::Result<bool> {
    let mut keep = true;
    let mut err: Option<syn::Error> = None;
    attrs.retain(|attr| {
        if !is_ver(attr) {
            return true;
        }
        let result = match &attr.meta {
            syn::Meta::List(list) => {
                syn::parse2::<Cond>(list.tokens.clone()).and_then(|c| c.eval(args, current))
            }
            _ => Err(syn::Error::new_spanned(
                attr,
                "expected a condition: #[ver(V >= r570_144)]",
            )),
        };
        match result {
            Ok(k) => keep &= k,
            Err(e) => match &mut err {
                Some(prev) => prev.combine(e),
                None => err = Some(e),
            },
        }
        false
    });
    match err {
        Some(e) => Err(e),
        None => Ok(keep),
    }
}

/// The error for a `#[ver]` on an element that cannot carry one.
pub(crate) fn unsupported(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "#[ver] is not supported here; put it on an item, impl or trait item, field, variant, \
         statement, match arm or struct-expression field",
    )
}
