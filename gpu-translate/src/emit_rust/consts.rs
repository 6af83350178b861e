//! Module constants: the Rust that gives each one its value.
//!
//! The translator sees a constant's uses, not its declaration. For each constant it emits,
//! beside the function, `const __gpu_const_<fn>_<i>: <type its uses imply> = <the path as
//! written>;`, spanned on the first use: rustc evaluates it and reports, on the user's
//! tokens, a constant whose type is not the one the kernel computes with. The definition
//! records each value ([`ConstValue`](../../gpu_runtime) in the runtime), which the runtime
//! writes into the C source. Static shared memory sized by constants is checked here too,
//! by rustc, against the 48 KB a block may have.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::check::SHARED_BYTES_MAX;
use crate::ir::{Dim, Kernel, Prim, RTy, Space};
use crate::parse::signature::KernelSignature;

/// The constants' items and the definition's table of them.
#[derive(Clone, Debug, Default)]
pub struct ConstItems {
    /// The `const` items (and the shared-memory check), beside the function.
    pub items: TokenStream,
    /// `&[ConstValue::usize("gt_c0_k", super::__gpu_const_k_0), ..]`, for the function's
    /// module (one level down).
    pub table: TokenStream,
    /// Each constant's text and its generated constant, for the simulator's body.
    pub renames: Vec<(String, syn::Ident)>,
}

impl ConstItems {
    /// The table, or `&[]` when there is none.
    pub fn table_or_empty(&self) -> TokenStream {
        if self.table.is_empty() {
            quote!(&[])
        } else {
            self.table.clone()
        }
    }
}

/// The items for `k`'s constants; `item` is the function's Rust name.
pub fn const_items(
    k: &Kernel<RTy>,
    sig: &KernelSignature,
    item: &str,
    krate: &syn::Path,
) -> ConstItems {
    if k.consts.is_empty() {
        return ConstItems::default();
    }
    let mut items = TokenStream::new();
    let mut values = Vec::new();
    let mut renames = Vec::new();
    for (i, c) in k.consts.iter().enumerate() {
        let RTy::Prim(p) = c.ty else {
            continue;
        };
        let name = format_ident!("__gpu_const_{}_{}", item, i);
        let ty = format_ident!("{}", p.rust_name());
        let rust = &c.rust;
        let span = c.span;
        renames.push((c.text.clone(), name.clone()));
        items.extend(quote_spanned! {span=>
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            const #name: ::core::primitive::#ty = #rust;
        });
        let ctor = format_ident!("{}", p.rust_name());
        let c_name = &c.c_name;
        values.push(quote!(#krate::__private::ConstValue::#ctor(#c_name, super::#name)));
    }
    items.extend(shared_check(k, sig, item, krate));
    ConstItems {
        items,
        table: quote!(&[#(#values),*]),
        renames,
    }
}

/// `const _: () = assert!(..)` that the static shared arrays fit in a block, when a
/// constant sizes one (literal sizes are checked by the translator).
fn shared_check(
    k: &Kernel<RTy>,
    sig: &KernelSignature,
    item: &str,
    krate: &syn::Path,
) -> TokenStream {
    let shared: Vec<_> = k
        .arrays
        .iter()
        .filter(|a| a.space == Space::Shared)
        .collect();
    let Some(first) = shared
        .iter()
        .find(|a| a.dims.iter().any(|d| matches!(d, Dim::Const(_))))
    else {
        return TokenStream::new();
    };
    let arrays = shared.iter().map(|a| {
        let elem = elem_size(a.elem, sig);
        let dims = a.dims.iter().map(|d| match *d {
            Dim::Lit(n) => quote!(#n),
            Dim::Const(c) => {
                let name = format_ident!("__gpu_const_{}_{}", item, c);
                quote!(#name as u64)
            }
        });
        quote!((#elem, &[#(#dims),*]))
    });
    let message = format!(
        "with these constants' values the shared arrays of `{item}` have an extent of 0 or \
         take more than the {SHARED_BYTES_MAX} bytes of static shared memory a GPU block can \
         have; make them smaller, or use `dynamic_shared_array::<T>()`"
    );
    let span = first.span;
    quote_spanned! {span=>
        const _: () = ::core::assert!(
            #krate::__private::static_shared_fits(&[#(#arrays),*]),
            #message
        );
    }
}

/// The bytes of an element: its dtype's, or the largest its bound allows.
fn elem_size(t: RTy, sig: &KernelSignature) -> u64 {
    match t {
        RTy::Prim(p) => p.size() as u64,
        RTy::Generic(i) => Prim::ALL
            .into_iter()
            .filter(|d| sig.generics.get(i).is_some_and(|g| d.satisfies(g.bound)))
            .map(|d| d.size() as u64)
            .max()
            .unwrap_or(8),
        RTy::Struct(s) => crate::check::struct_size(&sig.structs, s) as u64,
        RTy::Opaque => 8,
    }
}
