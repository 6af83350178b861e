//! `#[gpu_device] trait Tr { fn m(self) -> Self; }`: a user trait whose methods kernels call
//! (`x.m()`, `T::m(x)`) on its `#[gpu_device] impl`s' types: dtypes (`impl Tr for f32`) and
//! `#[gpu_struct]`s, and on a generic function's dtype parameter bounded by it (`fn f<T:
//! Float + Tr>`), which is static dispatch as Rust's: the C of each implementation is a
//! device function, and a call reaches the one of its receiver's type.
//!
//! The trait gains one hidden associated constant per method, `gpu_device_trait_method_m`: each
//! `#[gpu_device] impl` sets it to the method's device function, and a kernel finds an
//! implementation through it (`<f32>::gpu_device_trait_method_m`, or for a dtype parameter through
//! its bounds at run time: `def/trait_impls.rs` in the runtime). Its default fails to
//! evaluate, with a message saying to mark the impl, where a kernel needs an impl that is
//! not marked.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

use super::{ctx_of, DEVICE_OPTIONS};
use crate::diagnostics::Diagnostics;
use crate::names::unraw;
use crate::parse::attr::parse_attr;

/// `#[gpu_device] trait Tr { .. }`.
pub(crate) fn expand_trait(attr: TokenStream, mut t: syn::ItemTrait) -> TokenStream {
    let mut diags = Diagnostics::default();
    let attr = parse_attr(attr, DEVICE_OPTIONS, "#[gpu_device]", &mut diags);
    let k = ctx_of(&attr).krate;
    check_trait(&t, &mut diags);
    if diags.is_empty() {
        let consts: Vec<syn::TraitItem> = t
            .items
            .iter()
            .filter_map(|item| match item {
                syn::TraitItem::Fn(f) => {
                    Some(crate::names::trait_device_const(&unraw(&f.sig.ident)))
                }
                _ => None,
            })
            .map(|name| {
                syn::parse_quote! {
                    #[doc(hidden)]
                    #[allow(non_upper_case_globals)]
                    const #name: &'static #k::__private::DeviceFnDef =
                        #k::__private::unmarked_impl();
                }
            })
            .collect();
        t.items.extend(consts);
    }
    let errors = diags.to_compile_errors();
    quote!(#errors #t)
}

/// What a `#[gpu_device] trait` may not be, reported on its tokens.
fn check_trait(t: &syn::ItemTrait, diags: &mut Diagnostics) {
    if !t.generics.params.is_empty() || t.generics.where_clause.is_some() {
        diags.error(
            t.generics.span(),
            "a `#[gpu_device] trait` takes no generic parameters or `where` clause; its \
             methods may take dtype parameters (`fn scale<U: Float>(self, by: U) -> Self`)",
        );
    }
    if let Some(u) = &t.unsafety {
        diags.error(u.span(), "a `#[gpu_device] trait` cannot be `unsafe`");
    }
    if let Some(a) = &t.auto_token {
        diags.error(
            a.span(),
            "a `#[gpu_device] trait` cannot be an `auto` trait",
        );
    }
    if !t.supertraits.is_empty() {
        diags.error(
            t.supertraits.span(),
            "a `#[gpu_device] trait` has no supertraits in kernels yet: bound the generic \
             function by each trait (`T: Float + Tr + Other`)",
        );
    }
    for item in &t.items {
        match item {
            syn::TraitItem::Fn(f) => {
                for input in &f.sig.inputs {
                    if let syn::FnArg::Typed(t) = input {
                        if array_type(&t.ty) {
                            diags.error(
                                t.ty.span(),
                                "a `#[gpu_device] trait`'s methods take numbers, \
                                 `#[gpu_struct]`s and references to them, not arrays: pass the \
                                 element, or write a `#[gpu_device]` function for the array",
                            );
                        }
                    }
                }
                if let Some(body) = &f.default {
                    diags.error(
                        body.brace_token.span.join(),
                        "a `#[gpu_device] trait`'s methods have no default bodies in kernels \
                         yet: write the method in each `#[gpu_device] impl`",
                    );
                }
            }
            other => diags.error(
                other.span(),
                "a `#[gpu_device] trait` holds methods only; put constants in the module \
                 (`const SCALE: f32 = 2.0;`), where kernels read them",
            ),
        }
    }
}

/// Whether `ty` is an array parameter's type (`&[T]`, `&mut [T]`, `&[T; N]`, a
/// `DeviceArray2`/`3` view), which device functions take in a form of their own.
fn array_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => matches!(&*r.elem, syn::Type::Slice(_) | syn::Type::Array(_)),
        syn::Type::Path(tp) => tp
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident.to_string().starts_with("DeviceArray")),
        _ => false,
    }
}
