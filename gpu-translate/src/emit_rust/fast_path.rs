//! A kernel's fast-path conditions as data for its definition: each bound and limit as
//! the postfix program `gpu_contract::fast_path::SymOp` describes, with scalar parameters
//! and array extents named by parameter position. The runtime evaluates them with the
//! launch's checked arguments (never code the launcher runs), so a launch cannot forge
//! them.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Axis, Kernel, Param, RTy};
use crate::sym::Sym;

/// `&[FastCondition { bound: &[..], limit: &[..] }, ..]` for the kernel's definition.
pub fn conditions(k: &Kernel<RTy>, krate: &syn::Path) -> TokenStream {
    let conditions = k.fast_path.iter().map(|c| {
        let bound = ops(&c.bound, k, krate);
        let limit = ops(&c.limit, k, krate);
        quote!(#krate::__private::FastCondition { bound: &[#(#bound),*], limit: &[#(#limit),*] })
    });
    quote!(&[#(#conditions),*])
}

/// Each condition as text, for tests and tools.
pub fn describe(k: &Kernel<RTy>) -> Vec<String> {
    let krate: syn::Path = syn::parse_quote!(gpu_runtime);
    k.fast_path
        .iter()
        .map(|c| {
            let show = |s: &Sym| {
                ops(s, k, &krate)
                    .iter()
                    .map(|t| {
                        t.to_string()
                            .replace("gpu_runtime :: __private :: SymOp :: ", "")
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!("{} < {}", show(&c.bound), show(&c.limit))
        })
        .collect()
}

/// The postfix program of `s`.
fn ops(s: &Sym, k: &Kernel<RTy>, krate: &syn::Path) -> Vec<TokenStream> {
    let mut out = Vec::new();
    push_ops(s, k, &quote!(#krate::__private::SymOp), &mut out);
    out
}

/// `s`'s operands' programs, then its own step.
fn push_ops(s: &Sym, k: &Kernel<RTy>, op: &TokenStream, out: &mut Vec<TokenStream>) {
    let position = |p: &dyn Fn(&Param) -> bool| {
        let i = k
            .params
            .iter()
            .position(p)
            .expect("a fast-path value is a parameter");
        u16::try_from(i).expect("kernels have fewer than 65536 parameters")
    };
    let axis = |a: &Axis| match a {
        Axis::X => 0u8,
        Axis::Y => 1,
        Axis::Z => 2,
    };
    let step = match s {
        Sym::Const(c) => {
            let c = *c as u64;
            quote!(#op::Const(#c))
        }
        Sym::Value(v) => {
            let i = position(&|p| matches!(p, Param::Scalar(w) if w == v));
            quote!(#op::Scalar(#i))
        }
        Sym::Extent(slice, a) => {
            let i = position(&|p| matches!(p, Param::Slice(t) if t == slice));
            let a = *a as u8;
            quote!(#op::Extent { param: #i, axis: #a })
        }
        Sym::BlockDim(a) => {
            let a = axis(a);
            quote!(#op::BlockDim(#a))
        }
        Sym::GridDim(a) => {
            let a = axis(a);
            quote!(#op::GridDim(#a))
        }
        Sym::Add(a, b) | Sym::Mul(a, b) | Sym::Min(a, b) | Sym::NoWrap(a, b) => {
            push_ops(a, k, op, out);
            push_ops(b, k, op, out);
            match s {
                Sym::Add(..) => quote!(#op::Add),
                Sym::Mul(..) => quote!(#op::Mul),
                Sym::Min(..) => quote!(#op::Min),
                _ => quote!(#op::NoWrap),
            }
        }
        Sym::Div(a, c) => {
            push_ops(a, k, op, out);
            let c = *c as u64;
            quote!(#op::Div(#c))
        }
        Sym::Shr(a, c) => {
            push_ops(a, k, op, out);
            quote!(#op::Shr(#c))
        }
        Sym::Dec(a) => {
            push_ops(a, k, op, out);
            quote!(#op::Dec)
        }
    };
    out.push(step);
}
