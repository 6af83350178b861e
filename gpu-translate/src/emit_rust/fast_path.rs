//! The launcher's half of a kernel's fast path: a closure over the launch's dimensions
//! that evaluates every fast-path condition with the values the launcher passes the
//! kernel, so the kernel learns in one parameter whether its fast copy may run.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::{Kernel, Param, RTy};

/// `move |grid, block| cond && ..`, or `None` for a kernel without a fast path. It reads
/// the launcher's packed parameters (`__gpu_p{i}_val`, `__gpu_p{i}_extent{k}`), copied in.
/// The launcher binds it in a `let` that allows Clippy's lints: conditions may be
/// plainly true for some arguments (`0 < a.len()` beside `i < a.len()`).
pub fn closure(k: &Kernel<RTy>, krate: &syn::Path) -> Option<TokenStream> {
    if k.fast_path.is_empty() {
        return None;
    }
    let conditions = conditions(k, krate);
    Some(quote! {
        move |__gpu_grid: [u64; 3], __gpu_block: [u64; 3]| -> bool {
            #(#conditions)&&*
        }
    })
}

/// Each condition, `bound < limit`, as a Rust expression.
pub fn conditions(k: &Kernel<RTy>, krate: &syn::Path) -> Vec<TokenStream> {
    let position = |p: &dyn Fn(&Param) -> bool| {
        k.params
            .iter()
            .position(p)
            .expect("a fast-path value is a parameter")
    };
    let value = |v: usize| {
        let i = position(&|p| matches!(p, Param::Scalar(w) if *w == v));
        let val = format_ident!("__gpu_p{}_val", i);
        quote!((#val as u64))
    };
    let extent = |s: usize, axis: usize| {
        let i = position(&|p| matches!(p, Param::Slice(t) if *t == s));
        let e = format_ident!("__gpu_p{}_extent{}", i, axis);
        quote!(#e)
    };
    let sat = quote!(#krate::__private);
    k.fast_path
        .iter()
        .map(|c| {
            let bound = c.bound.to_rust(&sat, &value, &extent);
            let limit = c.limit.to_rust(&sat, &value, &extent);
            quote!((#bound < #limit))
        })
        .collect()
}
