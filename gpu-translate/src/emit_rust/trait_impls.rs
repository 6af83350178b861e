//! The finders of a generic function's user-trait implementations (`x.sq()` with
//! `T: Float + Sq`): for each dtype parameter bounded by user traits, a function that asks rustc,
//! dtype by dtype, whether the dtype implements them all and, where it does, for the
//! device functions of the methods called on the parameter (`def/trait_impls.rs` in the
//! runtime says why this happens at run time).
//!
//! The question is autoref-based: `(&&Probe::<f32>).found()` resolves to the impl for
//! `&Probe<T>` with the parameter's bounds when `f32` meets them, else to the fallback
//! for `Probe<T>` (method resolution tries the receiver's own type before one reference
//! less). Both impls are local to the finder, so no coherence rule is involved.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Callee, Prim, TraitSelf};
use crate::parse::signature::{GenericDecl, KernelSignature};

/// The Rust type of dtype `p`, as any module can name it.
pub(crate) fn dtype_type(p: Prim, k: &syn::Path, span: proc_macro2::Span) -> TokenStream {
    let ident = syn::Ident::new(p.rust_name(), span);
    match p {
        Prim::F16 | Prim::Bf16 => quote!(#k::#ident),
        _ => quote!(#ident),
    }
}

/// `&[TraitImpls { .. }, ..]` for the dtype parameters of `generics` that have user-trait
/// bounds, with the methods `calls` names on each.
pub(crate) fn finders(calls: &[Callee], generics: &[GenericDecl], k: &syn::Path) -> TokenStream {
    let each = generics
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.user_traits.is_empty())
        .map(|(i, g)| {
            let names: Vec<String> = calls
                .iter()
                .filter_map(|c| match c {
                    Callee::Trait {
                        self_ty: TraitSelf::Generic(j),
                        name,
                    } if *j == i => Some(crate::names::unraw(name)),
                    _ => None,
                })
                .collect();
            let methods: Vec<syn::Ident> = calls
                .iter()
                .filter_map(|c| match c {
                    Callee::Trait {
                        self_ty: TraitSelf::Generic(j),
                        name,
                    } if *j == i => {
                        // Spanned on the call: where a trait without the attribute is named.
                        let c = crate::names::trait_device_const(&crate::names::unraw(name));
                        Some(syn::Ident::new(&c.to_string(), name.span()))
                    }
                    _ => None,
                })
                .collect();
            let bounds: Vec<syn::Path> =
                g.user_traits.iter().map(super::one_level_down).collect();
            let span = g.ident.span();
            let probes = Prim::ALL
                .into_iter()
                .filter(|p| p.satisfies(g.bound) && !p.is_complex())
                .map(|p| {
                    let ty = dtype_type(p, k, span);
                    let kind = format_ident!("{}", p.variant_name());
                    quote! {
                        if let Some(fns) = (&&Probe::<#ty>(::core::marker::PhantomData)).found() {
                            out.push((#k::__private::DtypeKind::#kind, fns));
                        }
                    }
                });
            quote! {
                #k::__private::TraitImpls {
                    param: #i,
                    methods: &[#(#names),*],
                    find: {
                        #[allow(non_camel_case_types, clippy::needless_borrow)]
                        fn find() -> ::std::vec::Vec<(
                            #k::__private::DtypeKind,
                            ::std::vec::Vec<&'static #k::__private::DeviceFnDef>,
                        )> {
                            struct Probe<T>(::core::marker::PhantomData<T>);
                            trait Found {
                                fn found(&self)
                                    -> ::core::option::Option<::std::vec::Vec<&'static #k::__private::DeviceFnDef>>;
                            }
                            impl<T: #(#bounds)+*> Found for &Probe<T> {
                                fn found(&self)
                                    -> ::core::option::Option<::std::vec::Vec<&'static #k::__private::DeviceFnDef>> {
                                    ::core::option::Option::Some(::std::vec![#(<T>::#methods),*])
                                }
                            }
                            trait Absent {
                                fn found(&self)
                                    -> ::core::option::Option<::std::vec::Vec<&'static #k::__private::DeviceFnDef>>;
                            }
                            impl<T> Absent for Probe<T> {
                                fn found(&self)
                                    -> ::core::option::Option<::std::vec::Vec<&'static #k::__private::DeviceFnDef>> {
                                    ::core::option::Option::None
                                }
                            }
                            let mut out = ::std::vec::Vec::new();
                            #(#probes)*
                            out
                        }
                        find
                    },
                }
            }
        });
    quote!(&[#(#each),*])
}

/// `.for_trait_self(DtypeKind::F32, "sq")` for a user trait's method of a dtype (what finds
/// it checks that it is that method), nothing otherwise.
pub(crate) fn trait_self(sig: Option<&KernelSignature>, k: &syn::Path) -> Option<TokenStream> {
    let sig = sig?;
    let p = sig.self_dtype?;
    let method = crate::names::unraw(&sig.ident);
    let kind = format_ident!("{}", p.variant_name());
    Some(quote!(.for_trait_self(#k::__private::DtypeKind::#kind, #method)))
}
