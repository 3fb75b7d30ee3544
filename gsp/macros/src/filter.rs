// SPDX-License-Identifier: GPL-2.0

//! Makes one version's copy: drops elements whose condition fails, moves `super` paths one
//! level up (the copy sits one module deeper than the code it was written in) and names the
//! version for `V`; inside macro invocations, see [`crate::tokens`].

use syn::{
    punctuated::Punctuated,
    spanned::Spanned,
    visit_mut::{
        self,
        VisitMut, //
    },
    Attribute,
    Expr,
    Stmt, //
};

use crate::{
    cond,
    versions::Args, //
};

/// The visitor that filters one copy.
pub(crate) struct Filter<'a> {
    pub(crate) args: &'a Args,
    pub(crate) current: usize,
    pub(crate) errors: Option<syn::Error>,
    /// How many modules deep the visitor is inside the copy (paths in nested modules keep their
    /// `super`).
    depth: usize,
}

impl<'a> Filter<'a> {
    pub(crate) fn new(args: &'a Args, current: usize) -> Self {
        Filter {
            args,
            current,
            errors: None,
            depth: 0,
        }
    }

    fn error(&mut self, e: syn::Error) {
        match &mut self.errors {
            Some(prev) => prev.combine(e),
            None => self.errors = Some(e),
        }
    }

    /// Evaluates and removes an element's `ver` attributes; whether the element stays. Errors
    /// are collected and reported together at the end.
    pub(crate) fn keep(&mut self, attrs: &mut Vec<Attribute>) -> bool {
        match cond::keep(attrs, self.args, self.current) {
            Ok(k) => k,
            Err(e) => {
                self.error(e);
                true
            }
        }
    }

    /// Filters a vector of elements by their attributes.
    fn retain<T>(&mut self, v: &mut Vec<T>, attrs: impl Fn(&mut T) -> Option<&mut Vec<Attribute>>) {
        let mut i = 0;
        while i < v.len() {
            let keep = match attrs(&mut v[i]) {
                Some(a) => self.keep(a),
                None => true,
            };
            if keep {
                i += 1;
            } else {
                v.remove(i);
            }
        }
    }

    /// Filters punctuated elements by their attributes.
    fn retain_punctuated<T, P: Default>(
        &mut self,
        p: &mut Punctuated<T, P>,
        attrs: impl Fn(&mut T) -> &mut Vec<Attribute>,
    ) {
        let old = core::mem::take(p);
        let trailing = old.trailing_punct();
        for mut pair in old.into_pairs() {
            if self.keep(attrs(pair.value_mut())) {
                let (value, punct) = pair.into_tuple();
                p.push_value(value);
                if let Some(punct) = punct {
                    p.push_punct(punct);
                }
            }
        }
        if p.trailing_punct() && !trailing {
            p.pop_punct();
        }
    }
}

/// The attributes of an item, if it has a place for them.
pub(crate) fn item_attrs(item: &mut syn::Item) -> Option<&mut Vec<Attribute>> {
    use syn::Item::*;
    Some(match item {
        Const(i) => &mut i.attrs,
        Enum(i) => &mut i.attrs,
        ExternCrate(i) => &mut i.attrs,
        Fn(i) => &mut i.attrs,
        ForeignMod(i) => &mut i.attrs,
        Impl(i) => &mut i.attrs,
        Macro(i) => &mut i.attrs,
        Mod(i) => &mut i.attrs,
        Static(i) => &mut i.attrs,
        Struct(i) => &mut i.attrs,
        Trait(i) => &mut i.attrs,
        TraitAlias(i) => &mut i.attrs,
        Type(i) => &mut i.attrs,
        Union(i) => &mut i.attrs,
        Use(i) => &mut i.attrs,
        _ => return None,
    })
}

fn impl_item_attrs(item: &mut syn::ImplItem) -> Option<&mut Vec<Attribute>> {
    use syn::ImplItem::*;
    Some(match item {
        Const(i) => &mut i.attrs,
        Fn(i) => &mut i.attrs,
        Type(i) => &mut i.attrs,
        Macro(i) => &mut i.attrs,
        _ => return None,
    })
}

fn trait_item_attrs(item: &mut syn::TraitItem) -> Option<&mut Vec<Attribute>> {
    use syn::TraitItem::*;
    Some(match item {
        Const(i) => &mut i.attrs,
        Fn(i) => &mut i.attrs,
        Type(i) => &mut i.attrs,
        Macro(i) => &mut i.attrs,
        _ => return None,
    })
}

/// The attributes of an expression statement. The parser attaches a statement's outer
/// attributes to the leftmost sub-expression (`x` in `#[a] x += 1`), as rustc does, so follow
/// the left spine down to the first expression carrying a `ver` attribute.
fn stmt_expr_attrs(expr: &mut Expr) -> Option<&mut Vec<Attribute>> {
    let has_ver = |e: &mut Expr| own_attrs(e).is_some_and(|a| a.iter().any(crate::cond::is_ver));
    if has_ver(expr) {
        return own_attrs(expr);
    }
    let left: &mut Expr = match expr {
        Expr::Assign(e) => &mut e.left,
        Expr::Binary(e) => &mut e.left,
        Expr::Cast(e) => &mut e.expr,
        Expr::Field(e) => &mut e.base,
        Expr::Index(e) => &mut e.expr,
        Expr::MethodCall(e) => &mut e.receiver,
        Expr::Call(e) => &mut e.func,
        Expr::Try(e) => &mut e.expr,
        Expr::Await(e) => &mut e.base,
        Expr::Range(e) => match &mut e.start {
            Some(s) => s,
            None => return None,
        },
        _ => return None,
    };
    stmt_expr_attrs(left)
}

/// The attributes of an expression itself.
fn own_attrs(expr: &mut Expr) -> Option<&mut Vec<Attribute>> {
    use syn::Expr::*;
    Some(match expr {
        Array(e) => &mut e.attrs,
        Assign(e) => &mut e.attrs,
        Async(e) => &mut e.attrs,
        Await(e) => &mut e.attrs,
        Binary(e) => &mut e.attrs,
        Block(e) => &mut e.attrs,
        Break(e) => &mut e.attrs,
        Call(e) => &mut e.attrs,
        Cast(e) => &mut e.attrs,
        Closure(e) => &mut e.attrs,
        Const(e) => &mut e.attrs,
        Continue(e) => &mut e.attrs,
        Field(e) => &mut e.attrs,
        ForLoop(e) => &mut e.attrs,
        Group(e) => &mut e.attrs,
        If(e) => &mut e.attrs,
        Index(e) => &mut e.attrs,
        Let(e) => &mut e.attrs,
        Lit(e) => &mut e.attrs,
        Loop(e) => &mut e.attrs,
        Macro(e) => &mut e.attrs,
        Match(e) => &mut e.attrs,
        MethodCall(e) => &mut e.attrs,
        Paren(e) => &mut e.attrs,
        Path(e) => &mut e.attrs,
        Range(e) => &mut e.attrs,
        Reference(e) => &mut e.attrs,
        Repeat(e) => &mut e.attrs,
        Return(e) => &mut e.attrs,
        Struct(e) => &mut e.attrs,
        Try(e) => &mut e.attrs,
        TryBlock(e) => &mut e.attrs,
        Tuple(e) => &mut e.attrs,
        Unary(e) => &mut e.attrs,
        Unsafe(e) => &mut e.attrs,
        While(e) => &mut e.attrs,
        Yield(e) => &mut e.attrs,
        _ => return None,
    })
}

fn stmt_attrs(stmt: &mut Stmt) -> Option<&mut Vec<Attribute>> {
    match stmt {
        Stmt::Local(l) => Some(&mut l.attrs),
        Stmt::Item(i) => item_attrs(i),
        Stmt::Expr(e, _) => stmt_expr_attrs(e),
        Stmt::Macro(m) => Some(&mut m.attrs),
    }
}

impl VisitMut for Filter<'_> {
    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            self.retain(items, item_attrs);
        }
        // The module's attributes and visibility are written where the module is, at this
        // depth; only its contents are one level deeper.
        for a in &mut m.attrs {
            self.visit_attribute_mut(a);
        }
        self.visit_visibility_mut(&mut m.vis);
        self.depth += 1;
        if let Some((_, items)) = &mut m.content {
            for item in items {
                self.visit_item_mut(item);
            }
        }
        self.depth -= 1;
    }

    fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
        self.retain(&mut i.items, impl_item_attrs);
        visit_mut::visit_item_impl_mut(self, i);
    }

    fn visit_item_trait_mut(&mut self, t: &mut syn::ItemTrait) {
        self.retain(&mut t.items, trait_item_attrs);
        visit_mut::visit_item_trait_mut(self, t);
    }

    fn visit_fields_named_mut(&mut self, f: &mut syn::FieldsNamed) {
        self.retain_punctuated(&mut f.named, |f| &mut f.attrs);
        visit_mut::visit_fields_named_mut(self, f);
    }

    fn visit_fields_unnamed_mut(&mut self, f: &mut syn::FieldsUnnamed) {
        self.retain_punctuated(&mut f.unnamed, |f| &mut f.attrs);
        visit_mut::visit_fields_unnamed_mut(self, f);
    }

    fn visit_item_enum_mut(&mut self, e: &mut syn::ItemEnum) {
        self.retain_punctuated(&mut e.variants, |v| &mut v.attrs);
        visit_mut::visit_item_enum_mut(self, e);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.retain(&mut b.stmts, stmt_attrs);
        visit_mut::visit_block_mut(self, b);
    }

    fn visit_expr_match_mut(&mut self, m: &mut syn::ExprMatch) {
        self.retain(&mut m.arms, |a| Some(&mut a.attrs));
        visit_mut::visit_expr_match_mut(self, m);
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        self.retain_punctuated(&mut s.fields, |f| &mut f.attrs);
        visit_mut::visit_expr_struct_mut(self, s);
    }

    fn visit_attribute_mut(&mut self, a: &mut Attribute) {
        // Every `ver` in a supported position was removed before the visitor got here.
        if cond::is_ver(a) {
            self.error(cond::unsupported(a.span()));
        }
        visit_mut::visit_attribute_mut(self, a);
    }

    fn visit_path_mut(&mut self, p: &mut syn::Path) {
        // `V` between two segments names this copy's version: `other::V::item` is the same
        // version's copy of another versioned module. A first segment `V` is something else (a
        // generic parameter, a crate), and a last one is an item of that name.
        let inner = 1..p.segments.len().saturating_sub(1);
        for seg in p.segments.iter_mut().take(inner.end).skip(inner.start) {
            if seg.ident == "V" {
                if seg.arguments.is_empty() {
                    seg.ident = self.version_ident(seg.ident.span());
                } else {
                    self.error(v_with_arguments(seg.span()));
                }
            }
        }
        if self.depth == 0 && p.leading_colon.is_none() {
            if let Some(first) = p.segments.first() {
                if first.ident == "super" {
                    let span = first.ident.span();
                    p.segments
                        .insert(0, syn::PathSegment::from(syn::Ident::new("super", span)));
                }
            }
        }
        visit_mut::visit_path_mut(self, p);
    }

    fn visit_vis_restricted_mut(&mut self, v: &mut syn::VisRestricted) {
        // `pub(super)` moves up like any `super` path, and a longer path needs `in`:
        // `pub(in super::super)`.
        let first = v.path.segments.first();
        if self.depth == 0
            && v.path.leading_colon.is_none()
            && first.is_some_and(|s| s.ident == "super")
        {
            v.in_token
                .get_or_insert_with(|| syn::Token![in](v.path.span()));
        }
        visit_mut::visit_vis_restricted_mut(self, v);
    }

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        visit_mut::visit_macro_mut(self, m);
        let version = &self.args.versions[self.current].ident;
        let (tokens, errors) =
            crate::tokens::rewrite(core::mem::take(&mut m.tokens), version, self.depth == 0);
        m.tokens = tokens;
        for e in errors {
            self.error(e);
        }
    }

    fn visit_item_use_mut(&mut self, u: &mut syn::ItemUse) {
        for a in &mut u.attrs {
            self.visit_attribute_mut(a);
        }
        self.visit_visibility_mut(&mut u.vis);
        self.use_tree(&mut u.tree, false);
    }
}

impl Filter<'_> {
    /// This copy's version as an identifier, for a `V` placeholder at `span`.
    fn version_ident(&self, span: proc_macro2::Span) -> syn::Ident {
        let version = &self.args.versions[self.current].ident;
        syn::Ident::new(&version.to_string(), span)
    }

    /// Rewrites a use tree as [`VisitMut::visit_path_mut`] rewrites paths; `prefixed` tells
    /// whether a segment comes before `t` (the first segment may be `super`, a later one `V`).
    fn use_tree(&mut self, t: &mut syn::UseTree, prefixed: bool) {
        match t {
            syn::UseTree::Path(p) => {
                if !prefixed && self.depth == 0 && p.ident == "super" {
                    let span = p.ident.span();
                    let rest = core::mem::replace(
                        &mut p.tree,
                        Box::new(syn::UseTree::Glob(syn::UseGlob {
                            star_token: Default::default(),
                        })),
                    );
                    p.tree = Box::new(syn::UseTree::Path(syn::UsePath {
                        ident: syn::Ident::new("super", span),
                        colon2_token: Default::default(),
                        tree: rest,
                    }));
                    // The inserted `super` is the new first segment; go on below it.
                    if let syn::UseTree::Path(inserted) = &mut *p.tree {
                        self.use_tree(&mut inserted.tree, true);
                    }
                    return;
                }
                if prefixed && p.ident == "V" {
                    p.ident = self.version_ident(p.ident.span());
                }
                self.use_tree(&mut p.tree, true);
            }
            syn::UseTree::Group(g) => {
                for item in &mut g.items {
                    self.use_tree(item, prefixed);
                }
            }
            syn::UseTree::Name(_) | syn::UseTree::Rename(_) | syn::UseTree::Glob(_) => {}
        }
    }
}

/// The error for a `V` placeholder written with generic arguments.
pub(crate) fn v_with_arguments(span: proc_macro2::Span) -> syn::Error {
    syn::Error::new(
        span,
        "`V` between two path segments names the firmware version and takes no generic \
         arguments",
    )
}
