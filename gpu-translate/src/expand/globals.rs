//! `#[gpu_global]` on a `static` array: device memory that kernels name as a module array
//! and the host reads and writes (CUDA's `__device__` arrays; `constant`: `__constant__`
//! ones, written only by the host).
//!
//! `#[gpu_global] static HIST: [u32; 256] = [0; 256];` becomes
//! `static HIST: DeviceGlobal<[u32; 256], false> = DeviceGlobal::__new([0; 256], "HIST");`.
//! Kernels find it by its uses, as they find a `const` table (`lower/const_arrays.rs`);
//! rustc tells the two apart through the runtime's `ModuleArray`.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;

use crate::diagnostics::Diagnostics;

/// The most bytes a `#[gpu_global(constant)]` may have: constant memory's 64 KB, which a
/// kernel's tables share (they move to global memory when they no longer fit).
const CONSTANT_BYTES_MAX: usize = 64 * 1024;

/// `#[gpu_global(...)]` on `item`.
pub fn expand_global(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut diags = Diagnostics::default();
    let (constant, krate) = parse_options(attr, &mut diags);
    let advice = "#[gpu_global] applies to a `static` one-dimensional array of numbers or \
                  `bool`: `#[gpu_global] static HIST: [u32; 256] = [0; 256];`";
    let item: syn::ItemStatic = match syn::parse2(item.clone()) {
        Ok(s) => s,
        Err(_) => {
            let span = syn::parse2::<syn::ItemConst>(item.clone())
                .map(|c| c.const_token.span())
                .unwrap_or_else(|_| Span::call_site());
            diags.error(
                span,
                format!("{advice} (a `const` has no single address for the device copies to be found by)"),
            );
            let errors = diags.to_compile_errors();
            return quote_spanned!(Span::call_site()=> #errors #item);
        }
    };
    if let syn::StaticMutability::Mut(m) = &item.mutability {
        diags.error(
            m.span(),
            "a #[gpu_global] is written through kernels and its `write` method, not as a \
             `static mut`: drop `mut`",
        );
    }
    let elem_ok = match &*item.ty {
        syn::Type::Array(a) => match &*a.elem {
            syn::Type::Path(p) => p.path.get_ident().is_some_and(|i| {
                use crate::ir::Prim;
                Prim::from_rust_name(&i.to_string())
                    .is_some_and(|p| !matches!(p, Prim::F16 | Prim::Bf16 | Prim::C32 | Prim::C64))
            }),
            _ => false,
        },
        _ => false,
    };
    if !elem_ok {
        diags.error(
            item.ty.span(),
            format!(
                "{advice}; for a table of rows, index one array as `HIST[r * COLS + c]`, and \
                 keep structs' fields in one global each"
            ),
        );
    }
    if !diags.is_empty() {
        let errors = diags.to_compile_errors();
        return quote_spanned!(Span::call_site()=> #errors #item);
    }
    let k = krate.unwrap_or_else(|| syn::parse_quote!(::gpu_runtime));
    let syn::ItemStatic {
        attrs,
        vis,
        static_token,
        ident,
        ty,
        expr,
        ..
    } = item;
    let name = crate::names::unraw(&ident);
    let span = ty.span();
    let size_check = constant.then(|| {
        let message = format!(
            "`{name}` is over the {CONSTANT_BYTES_MAX} bytes of constant memory a kernel has; \
             drop `constant` to keep it in device memory"
        );
        quote_spanned! {span=>
            const _: () = ::core::assert!(
                ::core::mem::size_of::<#ty>() <= #CONSTANT_BYTES_MAX,
                #message
            );
        }
    });
    quote_spanned! {span=>
        #(#attrs)*
        #vis #static_token #ident: #k::DeviceGlobal<#ty, #constant> =
            #k::DeviceGlobal::__new(#expr, #name);
        #size_check
    }
}

/// `constant` and `crate = "path"`.
fn parse_options(attr: TokenStream, diags: &mut Diagnostics) -> (bool, Option<syn::Path>) {
    let parser = Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated;
    let mut constant = false;
    let mut krate = None;
    let Ok(items) = syn::parse::Parser::parse2(parser, attr.clone()) else {
        diags.error(
            attr.span(),
            "write `#[gpu_global]`, or `#[gpu_global(constant)]` for constant memory",
        );
        return (constant, krate);
    };
    for meta in items {
        match &meta {
            syn::Meta::Path(p) if p.is_ident("constant") => constant = true,
            syn::Meta::NameValue(nv) if nv.path.is_ident("crate") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => match s.parse::<syn::Path>() {
                    Ok(p) => krate = Some(p),
                    Err(_) => diags.error(s.span(), "`crate` names a path: `crate = \"my_gpu\"`"),
                },
                other => diags.error(other.span(), "`crate` takes a string: `crate = \"my_gpu\"`"),
            },
            other => diags.error(
                other.span(),
                "#[gpu_global] takes `constant` (constant memory, written only by the host) and \
                 `crate = \"path\"`",
            ),
        }
    }
    (constant, krate)
}
