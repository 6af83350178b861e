//! `#[gpu_enum]` on an enum whose variants carry data (`parse/data_enums.rs` says how it
//! looks in C): the enum as written, its register-only layout for the runtime, the hidden
//! functions the desugared `match` calls on the simulator (`Shape::__gpu_is_Circle(s)`,
//! `Shape::__gpu_field_Circle_0(s)`, which the translator lowers to reads of the C
//! struct's tag and fields), and the macro that carries its variants to kernels.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::structs::carrier_macro;
use crate::diagnostics::Diagnostics;
use crate::parse::data_enums::{
    carried_data_enum, data_field_name, field_fn, is_variant_fn, CarriedVariant, TAG_FIELD,
    TAG_TYPE,
};

/// The expansion of `#[gpu_enum]` on `e`, whose variants `variants` carry data.
pub(super) fn expand_data_enum(
    e: syn::ItemEnum,
    variants: Vec<CarriedVariant>,
    krate: &syn::Path,
    mut diags: Diagnostics,
) -> TokenStream {
    // Kernels copy values as Rust copies a `Copy` type.
    super::enums::require_derives(
        &e,
        &["Clone", "Copy"],
        "a #[gpu_enum] with data",
        &mut diags,
    );
    if !e.generics.params.is_empty() {
        diags.error(e.generics.span(), "a #[gpu_enum] is not generic");
    }
    if !diags.is_empty() {
        // Without the values refused above, so rustc does not refuse them again.
        let errors = diags.to_compile_errors();
        let mut e = e;
        e.variants.iter_mut().for_each(|v| v.discriminant = None);
        return quote!(#errors #e);
    }
    let functions = hidden_functions(&e);
    let layout = layout_impl(&e, krate);
    let carried = carried_data_enum(e.ident.clone(), variants);
    let carrier = carrier_macro(&carried, krate);
    quote! {
        #e
        #functions
        #layout
        #carrier
    }
}

/// `Shape::__gpu_is_Circle(s)` and `Shape::__gpu_field_Circle_0(s)` for every variant and
/// field: what a desugared `match` calls, run as they are on the simulator. They take the
/// value or a reference to it (`Borrow`), as a `match` on a `&Shape` reads the value.
fn hidden_functions(e: &syn::ItemEnum) -> TokenStream {
    let name = &e.ident;
    let mut fns = Vec::new();
    for v in &e.variants {
        let vname = crate::names::unraw(&v.ident);
        let vi = &v.ident;
        let span = v.ident.span();
        let is = format_ident!("{}", is_variant_fn(&vname), span = span);
        fns.push(quote_spanned! {span=>
            #[doc(hidden)]
            #[inline]
            pub fn #is(value: impl ::core::borrow::Borrow<Self>) -> bool {
                ::core::matches!(*value.borrow(), #name::#vi { .. })
            }
        });
        for (k, f) in v.fields.iter().enumerate() {
            let (fname, member): (String, syn::Member) = match &f.ident {
                Some(i) => (crate::names::unraw(i), syn::Member::Named(i.clone())),
                None => (k.to_string(), syn::Member::Unnamed(syn::Index::from(k))),
            };
            let getter = format_ident!("{}", field_fn(&vname, &fname), span = span);
            let ty = &f.ty;
            fns.push(quote_spanned! {span=>
                #[doc(hidden)]
                #[inline]
                pub fn #getter(value: impl ::core::borrow::Borrow<Self>) -> #ty {
                    match *value.borrow() {
                        #name::#vi { #member: __gpu_value, .. } => __gpu_value,
                        #[allow(unreachable_patterns)]
                        _ => ::core::unreachable!(
                            "a desugared pattern reads a variant's field only after testing \
                             for the variant"
                        ),
                    }
                }
            });
        }
    }
    quote! {
        #[allow(non_snake_case, dead_code)]
        impl #name {
            #(#fns)*
        }
    }
}

/// `impl GpuRegisterValue` (its C struct: the tag, then every variant's fields) and
/// `GpuStructDeclared`.
fn layout_impl(e: &syn::ItemEnum, krate: &syn::Path) -> TokenStream {
    let name = &e.ident;
    let name_str = crate::names::unraw(name);
    let c_name = gpu_contract::struct_layout::c_struct_name(&name_str);
    let private = quote!(#krate::__private);
    let tag = format_ident!("{}", TAG_TYPE.rust_name());
    let field = |n: &str, ty: TokenStream| {
        quote! {
            #private::FieldLayout {
                name: #n,
                offset: 0,
                ty: <#ty as #krate::Element>::ELEM,
                len: ::core::option::Option::None,
            }
        }
    };
    let mut fields = vec![field(TAG_FIELD, quote!(#tag))];
    for v in &e.variants {
        let vname = crate::names::unraw(&v.ident);
        for (k, f) in v.fields.iter().enumerate() {
            let fname = f
                .ident
                .as_ref()
                .map_or_else(|| k.to_string(), crate::names::unraw);
            let ty = &f.ty;
            fields.push(field(&data_field_name(&vname, &fname), quote!(#ty)));
        }
    }
    quote_spanned! {name.span()=>
        impl #private::GpuRegisterValue for #name {
            const LAYOUT: &'static #private::StructLayout = &#private::StructLayout {
                rust_name: #name_str,
                module: ::core::module_path!(),
                c_name: #c_name,
                size: 0,
                align: 0,
                fields: &[#(#fields),*],
                variants: &[],
                register_only: true,
            };
        }
        impl #private::GpuStructDeclared for #name {}
    }
}
