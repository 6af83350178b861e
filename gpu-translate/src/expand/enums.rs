//! `#[gpu_enum]`: a C-like enum usable in kernels, as array elements, scalar parameters,
//! struct fields and locals, compared with `==` and `!=`, cast to integers with `as`, and
//! matched. It is carried to kernels as a struct's fields are (`expand/structs.rs`), as
//! its `repr` integer and its variants' values; in C it is that integer (`typedef`).
//!
//! Soundness: device memory of an enum can hold bytes that are no variant (all-zero
//! memory, a checked kernel's out-of-range read from the shared sink), so every enum has
//! a variant of value 0 (required here; `Element`'s contract) and copies back to the host
//! make any other invalid value 0 (`dtype/bytes.rs`). The generated code asserts that the
//! values the translator computed are rustc's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::structs::carrier_macro;
use crate::diagnostics::Diagnostics;
use crate::ir::Prim;
use crate::parse::attr::parse_attr;
use crate::parse::structs::{Carried, WrittenTy};

/// The integer types an enum may be represented by.
const REPRS: [Prim; 8] = [
    Prim::I8,
    Prim::I16,
    Prim::I32,
    Prim::I64,
    Prim::U8,
    Prim::U16,
    Prim::U32,
    Prim::U64,
];

/// `#[gpu_enum]` on `item`.
pub fn expand_enum(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diags = Diagnostics::default();
    let parsed = parse_attr(
        attr,
        &[gpu_contract::options::OptionKey::Crate],
        "#[gpu_enum]",
        &mut diags,
    );
    let krate: syn::Path = parsed
        .crate_path
        .clone()
        .unwrap_or_else(|| syn::parse_quote!(::gpu_runtime));
    let mut e: syn::ItemEnum = match syn::parse2(item.clone()) {
        Ok(e) => e,
        Err(err) => {
            let err = syn::Error::new(
                err.span(),
                "#[gpu_enum] applies to an enum without data: `#[gpu_enum] #[derive(Clone, \
                 Copy, PartialEq)] enum Op { Add, Mul }`",
            )
            .to_compile_error();
            return quote!(#err #item);
        }
    };
    if let Some(variants) = crate::parse::data_enums::data_variants(&e, &mut diags) {
        return super::data_enums::expand_data_enum(e, variants, &krate, diags);
    }
    let repr = repr_of(&e, &mut diags);
    let variants = variant_values(&e, &mut diags);
    check_derives(&e, &mut diags);
    if !e.generics.params.is_empty() {
        diags.error(e.generics.span(), "a #[gpu_enum] is not generic");
    }
    let repr = match repr {
        Some(r) => r,
        None if diags.is_empty() || !e.attrs.iter().any(|a| a.path().is_ident("repr")) => {
            e.attrs.push(syn::parse_quote!(#[repr(i32)]));
            Prim::I32
        }
        None => Prim::I32,
    };
    if !diags.is_empty() {
        let errors = diags.to_compile_errors();
        return quote!(#errors #e);
    }
    if !variants.iter().any(|(_, v)| *v == 0) {
        let err = syn::Error::new(
            e.ident.span(),
            format!(
                "a #[gpu_enum] has a variant of value 0 (device memory starts zeroed, as \
                 `dev.zeros` gives it, and zero must be one of `{}`'s values): add one, or \
                 number them from 0",
                e.ident
            ),
        )
        .to_compile_error();
        return quote!(#err #e);
    }
    let carried = Carried {
        name: e.ident.clone(),
        fields: vec![(
            syn::Ident::new("value", e.ident.span()),
            WrittenTy::Prim(repr),
            None,
        )],
        variants: variants.clone(),
        data: Vec::new(),
    };
    let impls = enum_impls(&e, &krate, repr, &variants);
    let carrier = carrier_macro(&carried, &krate);
    quote! {
        #e
        #impls
        #carrier
    }
}

/// The enum's `repr` integer, if it declares one; another repr is an error.
fn repr_of(e: &syn::ItemEnum, diags: &mut Diagnostics) -> Option<Prim> {
    let mut found = None;
    for a in e.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = a.parse_nested_meta(|m| {
            let name = m
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            match REPRS.iter().find(|p| p.rust_name() == name) {
                Some(p) => found = Some(*p),
                None => diags.error(
                    m.path.span(),
                    "a #[gpu_enum] is represented by an integer: `#[repr(u8)]` (i8 i16 i32 i64 \
                     u8 u16 u32 u64), or no repr (then `i32`)",
                ),
            }
            Ok(())
        });
    }
    found
}

/// Each variant's value (rustc's rule: the one written, else one more than the previous,
/// from 0) of a C-like enum; a value that is not an integer literal is an error.
fn variant_values(e: &syn::ItemEnum, diags: &mut Diagnostics) -> Vec<(syn::Ident, i64)> {
    let mut out = Vec::new();
    let mut next: i64 = 0;
    for v in &e.variants {
        let value = match &v.discriminant {
            None => Some(next),
            Some((_, expr)) => literal_value(expr),
        };
        let Some(value) = value else {
            diags.error(
                v.discriminant.as_ref().map_or(v.span(), |(_, x)| x.span()),
                "write a #[gpu_enum] variant's value as an integer literal: `Mul = 4`",
            );
            continue;
        };
        out.push((v.ident.clone(), value));
        next = value.wrapping_add(1);
    }
    if out.is_empty() && diags.is_empty() {
        diags.error(e.ident.span(), "a #[gpu_enum] has at least one variant");
    }
    out
}

/// The value of an integer literal, negated or not (`4`, `-1`, `0x10`), as `value as i64`
/// gives it (a `u64` value above `i64::MAX` wraps, as the generated assertions compare).
fn literal_value(e: &syn::Expr) -> Option<i64> {
    let v = wide_value(e)?;
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&v)
        .then_some(v as i64)
}

fn wide_value(e: &syn::Expr) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<i128>().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => wide_value(expr).map(|v| -v),
        syn::Expr::Paren(p) => wide_value(&p.expr),
        _ => None,
    }
}

/// An error unless the enum derives `Clone`, `Copy` and `PartialEq` (arrays copy it, and
/// the simulator compares it as kernels do).
fn check_derives(e: &syn::ItemEnum, diags: &mut Diagnostics) {
    require_derives(e, &["Clone", "Copy", "PartialEq"], "a #[gpu_enum]", diags);
}

/// An error unless `e` derives every one of `needed`.
pub(super) fn require_derives(
    e: &syn::ItemEnum,
    needed: &[&str],
    what: &str,
    diags: &mut Diagnostics,
) {
    let mut derived: Vec<String> = Vec::new();
    for a in e.attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = a.parse_nested_meta(|m| {
            if let Some(last) = m.path.segments.last() {
                derived.push(last.ident.to_string());
            }
            Ok(())
        });
    }
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|d| !derived.iter().any(|x| x == d))
        .collect();
    if !missing.is_empty() {
        diags.error(
            e.ident.span(),
            format!(
                "{what} derives {}: `#[derive({})]`",
                missing.join(", "),
                needed.join(", ")
            ),
        );
    }
}

/// The enum's `Element` and `GpuStruct` impls (one field, `value`, of its repr), and the
/// assertions that its values are rustc's.
fn enum_impls(
    e: &syn::ItemEnum,
    krate: &syn::Path,
    repr: Prim,
    variants: &[(syn::Ident, i64)],
) -> TokenStream {
    let name = &e.ident;
    let repr_ty = format_ident!("{}", repr.rust_name());
    let private = quote!(#krate::__private);
    let idents = variants.iter().map(|(v, _)| v);
    let values: Vec<TokenStream> = variants
        .iter()
        .map(|(_, n)| {
            let lit = proc_macro2::Literal::i64_unsuffixed(*n);
            quote!(#lit)
        })
        .collect();
    let span = name.span();
    let layout = super::structs::layout_impl(
        name,
        krate,
        quote_spanned! {span=>
            #private::FieldLayout {
                name: "value",
                offset: 0,
                ty: <#repr_ty as #krate::Element>::ELEM,
                len: ::core::option::Option::None,
            }
        },
        quote!(#(#values),*),
    );
    quote_spanned! {span=>
        const _: () = {
            #(::core::assert!(#name::#idents as i64 == #values);)*
            ::core::assert!(::core::mem::size_of::<#name>() == ::core::mem::size_of::<#repr_ty>());
        };
        // SAFETY: the enum is `#[repr(#repr_ty)]` (asserted the same size), so its one part
        // is that integer at offset 0; it has a variant of value 0 (checked by the
        // attribute), so all-zero bytes are a value; `variants` are its values (asserted
        // above), which copies back from the device keep valid (`dtype/bytes.rs`).
        unsafe impl #krate::Element for #name {
            const ELEM: #private::ElemKind =
                #private::ElemKind::Struct(<#name as #private::GpuStruct>::LAYOUT);
        }
        #layout
    }
}
