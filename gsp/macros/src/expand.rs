// SPDX-License-Identifier: GPL-2.0

//! Expansion of `#[versions(...)]`: one filtered copy of the module's items per version.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{
    visit_mut::VisitMut,
    ItemMod, //
};

use crate::{
    filter::{
        item_attrs,
        Filter, //
    },
    versions::parse as parse_args,
};

/// Expands `#[versions(attr)] item`.
pub(crate) fn versions(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let args = parse_args(attr)?;
    let module: ItemMod = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            "#[versions] goes on an inline module: `mod name { ... }`",
        )
    })?;
    let Some((_, items)) = &module.content else {
        return Err(syn::Error::new_spanned(
            &module,
            "#[versions] needs the module's items inline: `mod name { ... }`",
        ));
    };

    let mut copies = Vec::new();
    let mut errors: Option<syn::Error> = None;
    for (index, version) in args.versions.iter().enumerate() {
        let mut filter = Filter::new(&args, index);
        let mut kept = Vec::new();
        for item in items {
            let mut item = item.clone();
            let keep = match item_attrs(&mut item) {
                Some(attrs) => filter.keep(attrs),
                None => true,
            };
            if keep {
                filter.visit_item_mut(&mut item);
                kept.push(item);
            }
        }
        if let Some(e) = filter.errors.take() {
            match &mut errors {
                Some(prev) => prev.combine(e),
                None => errors = Some(e),
            }
        }

        let ident = &version.ident;
        let dotted = version.dotted();
        let bindings = args.bindings.as_ref().map(|path| {
            quote! {
                #[allow(unused_imports)]
                use #path::#ident as fw;
            }
        });
        let doc = format!("The code of this module for GSP firmware {dotted}.");
        copies.push(quote! {
            #[doc = #doc]
            pub(crate) mod #ident {
                #bindings

                /// The firmware version of this copy, as in file names.
                #[allow(dead_code)]
                pub(crate) const VERSION: &str = #dotted;

                #(#kept)*
            }
        });
    }
    if let Some(e) = errors {
        return Err(e);
    }

    let attrs = &module.attrs;
    let vis = &module.vis;
    let name = &module.ident;
    Ok(quote! {
        #(#attrs)*
        #vis mod #name {
            #(#copies)*
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(attr: TokenStream, item: TokenStream) -> String {
        match versions(attr, item) {
            Ok(t) => t.to_string(),
            Err(e) => panic!("unexpected error: {e}"),
        }
    }

    fn error(attr: TokenStream, item: TokenStream) -> String {
        match versions(attr, item) {
            Ok(t) => panic!("expected an error, got {t}"),
            Err(e) => e.to_string(),
        }
    }

    fn copy_of(expanded: &str, version: &str) -> String {
        // The text of one version's module, from its `mod` to the next copy's doc.
        let start = expanded
            .find(&format!("pub (crate) mod {version}"))
            .unwrap_or_else(|| panic!("no copy for {version} in {expanded}"));
        let rest = &expanded[start..];
        let end = rest
            .find("# [doc = \"The code of this module for GSP firmware")
            .unwrap_or(rest.len());
        rest[..end].to_string()
    }

    #[test]
    fn makes_one_copy_per_version_with_its_version_string() {
        let out = expand(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    pub fn f() {}
                }
            ),
        );
        assert!(copy_of(&out, "r535_113_01").contains("\"535.113.01\""));
        assert!(copy_of(&out, "r570_144").contains("\"570.144\""));
        assert_eq!(out.matches("pub fn f").count(), 2);
    }

    #[test]
    fn keeps_fields_by_condition() {
        let out = expand(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    pub struct S {
                        a: u32,
                        #[ver(V >= r570_144)]
                        b: u64,
                    }
                }
            ),
        );
        let old = copy_of(&out, "r535_113_01");
        let new = copy_of(&out, "r570_144");
        assert!(old.contains("a : u32") && !old.contains("b : u64"));
        assert!(new.contains("a : u32") && new.contains("b : u64"));
        assert!(!out.contains("# [ver"));
    }

    #[test]
    fn filters_statements_arms_variants_and_struct_expression_fields() {
        let out = expand(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    enum E {
                        A,
                        #[ver(V == r535_113_01)]
                        Old,
                        #[ver(V == r570_144)]
                        New,
                    }
                    fn f(e: E) -> u32 {
                        let mut x = 0;
                        #[ver(V < r570_144)]
                        x += 535;
                        #[ver(V >= r570_144)]
                        x += 570;
                        match e {
                            E::A => 1,
                            #[ver(V == r535_113_01)]
                            E::Old => 2,
                            #[ver(V == r570_144)]
                            E::New => 3,
                        };
                        let _s = S {
                            a: 1,
                            #[ver(V >= r570_144)]
                            b: 2,
                        };
                        x
                    }
                }
            ),
        );
        let old = copy_of(&out, "r535_113_01");
        let new = copy_of(&out, "r570_144");
        assert!(old.contains("x += 535") && !old.contains("x += 570"));
        assert!(new.contains("x += 570") && !new.contains("x += 535"));
        assert!(old.contains("Old") && !old.contains("New"));
        assert!(new.contains("New") && !new.contains("Old"));
        assert!(old.contains("S { a : 1") && !old.contains("b : 2"));
        assert!(new.contains("S { a : 1 , b : 2"));
    }

    #[test]
    fn filters_items_and_impl_items() {
        let out = expand(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    #[ver(V >= r570_144)]
                    pub fn only_new() {}
                    impl T {
                        #[ver(not(V >= r570_144))]
                        fn only_old() {}
                        fn both() {}
                    }
                }
            ),
        );
        assert!(!copy_of(&out, "r535_113_01").contains("only_new"));
        assert!(copy_of(&out, "r570_144").contains("only_new"));
        assert!(copy_of(&out, "r535_113_01").contains("only_old"));
        assert!(!copy_of(&out, "r570_144").contains("only_old"));
        assert_eq!(out.matches("fn both").count(), 2);
    }

    #[test]
    fn any_all_not_combine() {
        let out = expand(
            quote!(r535_113_01, r570_144, r580_1),
            quote!(
                mod m {
                    #[ver(any(V == r535_113_01, V == r580_1))]
                    fn edges() {}
                    #[ver(all(V > r535_113_01, V < r580_1))]
                    fn middle() {}
                }
            ),
        );
        assert!(copy_of(&out, "r535_113_01").contains("edges"));
        assert!(!copy_of(&out, "r570_144").contains("edges"));
        assert!(copy_of(&out, "r580_1").contains("edges"));
        assert!(copy_of(&out, "r570_144").contains("middle"));
        assert_eq!(out.matches("fn middle").count(), 1);
    }

    #[test]
    fn binds_fw_to_the_versions_bindings() {
        let out = expand(
            quote!(r535_113_01, r570_144; bindings = crate::gsp::fw),
            quote!(
                mod m {}
            ),
        );
        assert!(
            copy_of(&out, "r535_113_01").contains("use crate :: gsp :: fw :: r535_113_01 as fw")
        );
        assert!(copy_of(&out, "r570_144").contains("use crate :: gsp :: fw :: r570_144 as fw"));
    }

    #[test]
    fn moves_super_paths_one_level_up() {
        let out = expand(
            quote!(r535_113_01),
            quote!(
                mod m {
                    use super::Thing;
                    fn f() -> super::Other {
                        super::make()
                    }
                    mod inner {
                        use super::f;
                    }
                }
            ),
        );
        assert!(out.contains("use super :: super :: Thing"));
        assert!(out.contains("super :: super :: Other"));
        assert!(out.contains("super :: super :: make ()"));
        // Inside a nested module, `super` still means the copy.
        assert!(out.contains("mod inner { use super :: f ; }"));
    }

    #[test]
    fn super_visibilities_keep_meaning_the_annotated_modules_parent() {
        let out = expand(
            quote!(r535_113_01),
            quote!(
                mod m {
                    pub(super) fn f() {}
                    pub(super) fn g() {}
                    pub(in super::m) fn h() {}
                    pub(self) fn i() {}
                    pub(crate) fn j() {}
                    pub(super) struct S {
                        pub(super) a: u32,
                    }
                    mod inner {
                        pub(super) fn k() {}
                    }
                    pub(super) mod outer {}
                }
            ),
        );
        // A module's own visibility is the copy's, like any item's.
        assert!(out.contains("pub (in super :: super) mod outer"), "{out}");
        assert!(out.contains("pub (in super :: super) fn f"), "{out}");
        assert!(out.contains("pub (in super :: super) fn g"), "{out}");
        assert!(out.contains("pub (in super :: super :: m) fn h"), "{out}");
        assert!(out.contains("pub (self) fn i"), "{out}");
        assert!(out.contains("pub (crate) fn j"), "{out}");
        assert!(out.contains("pub (in super :: super) struct S { pub (in super :: super) a"));
        // Inside a nested module, `super` still means the copy.
        assert!(out.contains("mod inner { pub (super) fn k"), "{out}");
    }

    #[test]
    fn v_in_a_path_names_the_same_version_of_another_module() {
        let out = expand(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    use crate::other::V::Thing;
                    fn f() -> u32 {
                        crate::other::V::g()
                    }
                    fn h<V: Copy>(v: V) -> V {
                        v
                    }
                }
            ),
        );
        let old = copy_of(&out, "r535_113_01");
        let new = copy_of(&out, "r570_144");
        assert!(old.contains("use crate :: other :: r535_113_01 :: Thing"));
        assert!(new.contains("crate :: other :: r570_144 :: g ()"));
        // A generic parameter named V is left alone.
        assert!(new.contains("fn h < V : Copy > (v : V) -> V"));
    }

    #[test]
    fn v_is_the_version_only_between_two_path_segments() {
        let out = expand(
            quote!(r535_113_01),
            quote!(
                mod m {
                    use super::other::V::Thing;
                    use crate::{other::V::Other, V::NotAModule};
                    use V::Crate;
                    fn f<V: Tr>() -> u32 {
                        V::N + <V as Tr>::N + V::Assoc::default() + crate::other::V::g()
                    }
                }
            ),
        );
        // After `super::`, in a use group and in an expression path: the version.
        assert!(
            out.contains("use super :: super :: other :: r535_113_01 :: Thing"),
            "{out}"
        );
        assert!(
            out.contains(
                "use crate :: { other :: r535_113_01 :: Other , r535_113_01 :: NotAModule }"
            ),
            "{out}"
        );
        assert!(
            out.contains("crate :: other :: r535_113_01 :: g ()"),
            "{out}"
        );
        // First segments are not the version: a crate, a generic parameter.
        assert!(out.contains("use V :: Crate"), "{out}");
        assert!(
            out.contains("V :: N + < V as Tr > :: N + V :: Assoc :: default ()"),
            "{out}"
        );
    }

    #[test]
    fn rejects_v_with_generic_arguments() {
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    fn f() -> u32 {
                        crate::other::V::<u8>::g()
                    }
                }
            ),
        );
        assert_eq!(
            e,
            "`V` between two path segments names the firmware version and takes no generic \
             arguments"
        );
    }

    #[test]
    fn rewrites_super_v_and_visibilities_inside_macro_invocations() {
        let out = expand(
            quote!(r535_113_01),
            quote!(
                mod m {
                    fn f() {
                        let _ = format!("{}", super::helper());
                        assert_eq!(super::super::x, crate::other::V::y);
                        a!([super::a(), (super::b)]);
                        b!(
                            pub(super) struct S;
                            pub(in super::m) struct T;
                            pub(crate) struct U;
                        );
                        c!(
                            mod inner {
                                use super::x;
                            }
                        );
                        d!(V::N, other::V, ::V::x, "super::s");
                    }
                    e! { use super::e; }
                }
            ),
        );
        assert!(
            out.contains("format ! (\"{}\" , super :: super :: helper ())"),
            "{out}"
        );
        assert!(
            out.contains(
                "assert_eq ! (super :: super :: super :: x , crate :: other :: r535_113_01 :: y)"
            ),
            "{out}"
        );
        assert!(
            out.contains("a ! ([super :: super :: a () , (super :: super :: b)])"),
            "{out}"
        );
        assert!(out.contains("b ! (pub (in super :: super) struct S ; pub (in super :: super :: m) struct T ; pub (crate) struct U ;)"), "{out}");
        // A module inside the invocation: its `super` is the copy.
        assert!(
            out.contains("c ! (mod inner { use super :: x ; })"),
            "{out}"
        );
        // `V` first or last is not the version, and literals are not code.
        assert!(
            out.contains("d ! (V :: N , other :: V , :: V :: x , \"super::s\")"),
            "{out}"
        );
        assert!(out.contains("e ! { use super :: super :: e ; }"), "{out}");
    }

    #[test]
    fn rejects_ver_inside_macro_invocations() {
        let e = error(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    fn f() -> Vec<u32> {
                        vec![
                            1,
                            #[ver(V >= r570_144)]
                            2,
                        ]
                    }
                }
            ),
        );
        assert_eq!(
            e,
            "`#[ver]` inside a macro invocation is not supported: the elements a macro makes are \
             not seen before it runs; put `#[ver]` on the whole invocation or move the element \
             out of it"
        );
    }

    #[test]
    fn rejects_super_inside_macro_invocations_that_is_not_a_path_or_visibility() {
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    m!(super);
                }
            ),
        );
        assert_eq!(
            e,
            "`super` inside a macro invocation is moved up only as a path (`super::x`) or a \
             visibility (`pub(super)`)"
        );
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    m!(crate::other::V::<u8>::g);
                }
            ),
        );
        assert!(e.starts_with("`V` between two path segments"), "{e}");
    }

    #[test]
    fn rejects_unknown_version() {
        let e = error(
            quote!(r535_113_01, r570_144),
            quote!(
                mod m {
                    #[ver(V >= r999)]
                    fn f() {}
                }
            ),
        );
        assert_eq!(
            e,
            "unknown version `r999`; expected one of: r535_113_01, r570_144"
        );
    }

    #[test]
    fn rejects_unsorted_versions() {
        let e = error(
            quote!(r570_144, r535_113_01),
            quote!(
                mod m {}
            ),
        );
        assert!(e.starts_with("versions must be listed oldest first"));
    }

    #[test]
    fn rejects_malformed_version_names() {
        let e = error(
            quote!(v570),
            quote!(
                mod m {}
            ),
        );
        assert_eq!(e, "version `v570` must look like r570_144");
    }

    #[test]
    fn rejects_malformed_conditions() {
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    #[ver(V ~ r535_113_01)]
                    fn f() {}
                }
            ),
        );
        assert!(e.contains("expected one of `==`"), "{e}");
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    #[ver]
                    fn f() {}
                }
            ),
        );
        assert!(e.contains("expected a condition"), "{e}");
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    #[ver(maybe(V == r535_113_01))]
                    fn f() {}
                }
            ),
        );
        assert!(e.contains("expected `V <op> version`"), "{e}");
    }

    #[test]
    fn rejects_ver_in_unsupported_position() {
        let e = error(
            quote!(r535_113_01),
            quote!(
                mod m {
                    fn f(#[ver(V == r535_113_01)] x: u32) {}
                }
            ),
        );
        assert!(e.starts_with("#[ver] is not supported here"), "{e}");
    }

    #[test]
    fn rejects_non_inline_module_and_other_items() {
        assert!(error(
            quote!(r535_113_01),
            quote!(
                mod m;
            )
        )
        .contains("inline"));
        assert!(error(
            quote!(r535_113_01),
            quote!(
                fn f() {}
            )
        )
        .contains("inline module"));
    }

    #[test]
    fn rejects_empty_version_list() {
        assert!(error(
            quote!(),
            quote!(
                mod m {}
            )
        )
        .starts_with("expected at least one version"));
    }
}
