//! A kernel's fast-path conditions as data for its definition: each bound and limit as
//! the postfix program `gpu_contract::fast_path::SymOp` describes, with scalar parameters
//! and array extents named by parameter position. The runtime evaluates them with the
//! launch's checked arguments (never code the launcher runs), so a launch cannot forge
//! them.

use gpu_contract::fast_path::SymOp;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Axis, Kernel, Param, RTy};
use crate::sym::Sym;

/// Each condition's `(bound, limit)` programs.
pub fn programs(k: &Kernel<RTy>) -> Vec<(Vec<SymOp>, Vec<SymOp>)> {
    k.fast_path
        .iter()
        .map(|c| (ops(&c.bound, k), ops(&c.limit, k)))
        .collect()
}

/// `&[FastCondition { bound: &[..], limit: &[..] }, ..]` for the kernel's definition.
pub fn conditions(k: &Kernel<RTy>, krate: &syn::Path) -> TokenStream {
    let program = |ops: &[SymOp]| {
        let ops = ops.iter().map(|o| op_tokens(*o, krate));
        quote!(&[#(#ops),*])
    };
    let conditions = programs(k).into_iter().map(|(bound, limit)| {
        let (bound, limit) = (program(&bound), program(&limit));
        quote!(#krate::__private::FastCondition { bound: #bound, limit: #limit })
    });
    quote!(&[#(#conditions),*])
}

/// Each condition as text, for tests and tools: `Extent { param: 0, axis: 0 } Dec <
/// Extent { param: 1, axis: 0 }`.
pub fn describe(k: &Kernel<RTy>) -> Vec<String> {
    let show = |ops: &[SymOp]| {
        ops.iter()
            .map(|o| format!("{o:?}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    programs(k)
        .iter()
        .map(|(bound, limit)| format!("{} < {}", show(bound), show(limit)))
        .collect()
}

/// `op` as an expression of the runtime's `SymOp`.
fn op_tokens(op: SymOp, krate: &syn::Path) -> TokenStream {
    let path = quote!(#krate::__private::SymOp);
    match op {
        SymOp::Const(c) => quote!(#path::Const(#c)),
        SymOp::Scalar(i) => quote!(#path::Scalar(#i)),
        SymOp::Constant(i) => quote!(#path::Constant(#i)),
        SymOp::Extent { param, axis } => quote!(#path::Extent { param: #param, axis: #axis }),
        SymOp::BlockDim(a) => quote!(#path::BlockDim(#a)),
        SymOp::GridDim(a) => quote!(#path::GridDim(#a)),
        SymOp::Add => quote!(#path::Add),
        SymOp::Mul => quote!(#path::Mul),
        SymOp::Div(c) => quote!(#path::Div(#c)),
        SymOp::Shr(c) => quote!(#path::Shr(#c)),
        SymOp::Min => quote!(#path::Min),
        SymOp::Dec => quote!(#path::Dec),
        SymOp::NoWrap => quote!(#path::NoWrap),
    }
}

/// The postfix program of `s`.
fn ops(s: &Sym, k: &Kernel<RTy>) -> Vec<SymOp> {
    let mut out = Vec::new();
    push_ops(s, k, &mut out);
    out
}

/// `s`'s operands' programs, then its own step.
fn push_ops(s: &Sym, k: &Kernel<RTy>, out: &mut Vec<SymOp>) {
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
        Sym::Const(c) => SymOp::Const(*c as u64),
        Sym::Value(v) => SymOp::Scalar(position(&|p| matches!(p, Param::Scalar(w) if w == v))),
        Sym::Extent(slice, a) => SymOp::Extent {
            param: position(&|p| matches!(p, Param::Slice(t) if t == slice)),
            axis: *a as u8,
        },
        Sym::Named(c) => {
            SymOp::Constant(u16::try_from(*c).expect("kernels name fewer than 65536 constants"))
        }
        Sym::BlockDim(a) => SymOp::BlockDim(axis(a)),
        Sym::GridDim(a) => SymOp::GridDim(axis(a)),
        Sym::Add(a, b) | Sym::Mul(a, b) | Sym::Min(a, b) | Sym::NoWrap(a, b) => {
            push_ops(a, k, out);
            push_ops(b, k, out);
            match s {
                Sym::Add(..) => SymOp::Add,
                Sym::Mul(..) => SymOp::Mul,
                Sym::Min(..) => SymOp::Min,
                _ => SymOp::NoWrap,
            }
        }
        Sym::Div(a, c) => {
            push_ops(a, k, out);
            SymOp::Div(*c as u64)
        }
        Sym::Shr(a, c) => {
            push_ops(a, k, out);
            SymOp::Shr(*c)
        }
        Sym::Dec(a) => {
            push_ops(a, k, out);
            SymOp::Dec
        }
    };
    out.push(step);
}
