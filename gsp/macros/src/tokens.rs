// SPDX-License-Identifier: GPL-2.0

//! Inside macro invocations: the rewriting of a copy, token by token.
//!
//! The tokens of `m!(...)` are not parsed (only `m` knows their grammar), so what the copy
//! changes in code is changed here only where the tokens say it unambiguously:
//! - `super` starting a path (`super::x`, not after `::`) is moved up one level, as are the
//!   visibilities `pub(super)` and `pub(in super...)`; inside a `mod name { ... }` among the
//!   tokens, `super` is left as it is, as in nested modules of the copy;
//! - `V` between two path segments (`a::V::b`) is the version;
//! - `#[ver]` is an error: the elements the macro makes are not known before it runs.
//!
//! Any other `super` is an error rather than left meaning something else in the copy.

use proc_macro2::{
    Delimiter,
    Group,
    Ident,
    Punct,
    Spacing,
    Span,
    TokenStream,
    TokenTree, //
};

use crate::filter::v_with_arguments;

/// Keywords that cannot be a path segment: after one, `::` starts a path (`use ::V::x`).
const NOT_SEGMENTS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn",
    "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return",
    "static", "struct", "trait", "true", "try", "type", "typeof", "unsafe", "unsized", "use",
    "virtual", "where", "while", "yield",
];

/// Rewrites the tokens of one macro invocation for the copy of `version`. `top` tells whether
/// the invocation is at the copy's top level (not in a module nested in it), where `super` moves
/// up. Returns the tokens and the errors found.
pub(crate) fn rewrite(
    tokens: TokenStream,
    version: &Ident,
    top: bool,
) -> (TokenStream, Vec<syn::Error>) {
    let mut r = Rewriter {
        version,
        errors: Vec::new(),
    };
    let tokens = r.stream(tokens, top);
    (tokens, r.errors)
}

struct Rewriter<'a> {
    version: &'a Ident,
    errors: Vec<syn::Error>,
}

impl Rewriter<'_> {
    fn stream(&mut self, tokens: TokenStream, top: bool) -> TokenStream {
        let toks: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out: Vec<TokenTree> = Vec::with_capacity(toks.len());
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Punct(p) if p.as_char() == '#' => {
                    if let Some(span) = ver_attribute(&toks[i + 1..]) {
                        self.errors.push(syn::Error::new(
                            span,
                            "`#[ver]` inside a macro invocation is not supported: the elements a \
                             macro makes are not seen before it runs; put `#[ver]` on the whole \
                             invocation or move the element out of it",
                        ));
                    }
                    out.push(toks[i].clone());
                }
                TokenTree::Ident(id) if top && id == "super" && !after_colons(&toks, i) => {
                    if colons_at(&toks, i + 1) {
                        out.push(TokenTree::Ident(Ident::new("super", id.span())));
                        out.extend(colons(id.span()));
                    } else {
                        self.errors.push(syn::Error::new(
                            id.span(),
                            "`super` inside a macro invocation is moved up only as a path \
                             (`super::x`) or a visibility (`pub(super)`)",
                        ));
                    }
                    out.push(toks[i].clone());
                }
                TokenTree::Ident(id)
                    if id == "V" && after_segment(&toks, i) && colons_at(&toks, i + 1) =>
                {
                    if matches!(toks.get(i + 3), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
                        self.errors.push(v_with_arguments(id.span()));
                        out.push(toks[i].clone());
                    } else {
                        out.push(TokenTree::Ident(Ident::new(
                            &self.version.to_string(),
                            id.span(),
                        )));
                    }
                }
                TokenTree::Ident(id) if id == "pub" => {
                    out.push(toks[i].clone());
                    if let Some(TokenTree::Group(g)) = toks.get(i + 1) {
                        if g.delimiter() == Delimiter::Parenthesis {
                            out.push(TokenTree::Group(self.visibility(g, top)));
                            i += 1;
                        }
                    }
                }
                TokenTree::Ident(id) if id == "mod" => {
                    out.push(toks[i].clone());
                    if let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) =
                        (toks.get(i + 1), toks.get(i + 2))
                    {
                        if g.delimiter() == Delimiter::Brace {
                            out.push(TokenTree::Ident(name.clone()));
                            out.push(TokenTree::Group(regroup(g, self.stream(g.stream(), false))));
                            i += 2;
                        }
                    }
                }
                TokenTree::Group(g) => {
                    out.push(TokenTree::Group(regroup(g, self.stream(g.stream(), top))));
                }
                t => out.push(t.clone()),
            }
            i += 1;
        }
        out.into_iter().collect()
    }

    /// The parenthesised part of `pub(...)`: `super` and `in super...` become
    /// `in super::super...`.
    fn visibility(&mut self, g: &Group, top: bool) -> Group {
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let start = usize::from(matches!(inner.first(), Some(TokenTree::Ident(i)) if i == "in"));
        match inner.get(start) {
            Some(TokenTree::Ident(first)) if top && first == "super" => {
                let span = first.span();
                let mut out = vec![TokenTree::Ident(Ident::new("in", span))];
                out.push(TokenTree::Ident(Ident::new("super", span)));
                out.extend(colons(span));
                // The rest is a path whose `super` has been moved up already.
                let rest = inner[start..].iter().cloned().collect();
                out.extend(self.stream(rest, false));
                regroup(g, out.into_iter().collect())
            }
            _ => regroup(g, self.stream(g.stream(), top)),
        }
    }
}

/// The span of the `[ver...]` if `toks` (what follows a `#`) start an attribute `ver`.
fn ver_attribute(toks: &[TokenTree]) -> Option<Span> {
    let group = match toks {
        [TokenTree::Group(g), ..] => g,
        [TokenTree::Punct(bang), TokenTree::Group(g), ..] if bang.as_char() == '!' => g,
        _ => return None,
    };
    if group.delimiter() != Delimiter::Bracket {
        return None;
    }
    match group.stream().into_iter().next() {
        Some(TokenTree::Ident(id)) if id == "ver" => Some(group.span()),
        _ => None,
    }
}

/// Whether `toks[i]` follows a `::`.
fn after_colons(toks: &[TokenTree], i: usize) -> bool {
    i >= 2 && colons_at(toks, i - 2)
}

/// Whether `toks[i]` follows `segment::`: it is not the first segment of its path.
fn after_segment(toks: &[TokenTree], i: usize) -> bool {
    after_colons(toks, i)
        && i >= 3
        && matches!(&toks[i - 3], TokenTree::Ident(id)
            if !NOT_SEGMENTS.contains(&id.to_string().as_str()))
}

/// Whether a `::` starts at `toks[i]`.
fn colons_at(toks: &[TokenTree], i: usize) -> bool {
    match (toks.get(i), toks.get(i + 1)) {
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) => {
            a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
        }
        _ => false,
    }
}

/// A `::` at `span`.
fn colons(span: Span) -> [TokenTree; 2] {
    let mut first = Punct::new(':', Spacing::Joint);
    first.set_span(span);
    let mut second = Punct::new(':', Spacing::Alone);
    second.set_span(span);
    [TokenTree::Punct(first), TokenTree::Punct(second)]
}

/// `g` with `tokens` inside.
fn regroup(g: &Group, tokens: TokenStream) -> Group {
    let mut new = Group::new(g.delimiter(), tokens);
    new.set_span(g.span());
    new
}
