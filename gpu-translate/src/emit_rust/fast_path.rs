//! A kernel's fast-path conditions for its definition: each bound and limit as the
//! postfix program `gpu_contract::fast_path::SymOp` describes, with scalar parameters and
//! array extents named by parameter position, and the same conditions compiled into a
//! function of the launch values. The runtime evaluates them with the launch's checked
//! arguments (never values the launcher computes), so a launch cannot forge them; the
//! compiled form is code of the definition, trusted as its CUDA C is (both come from the
//! attribute, through `KernelDef::__from_parts`).

use gpu_contract::fast_path::SymOp;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::sym::Sym;
use crate::ir::{Axis, Kernel, Param, RTy};

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

/// The same conditions compiled: `Some(f)` with `fn f(v: &dyn LaunchValues) -> bool`
/// computing exactly what `gpu_contract::fast_path::holds` computes from the data (the
/// same saturating steps, a malformed program saturating as the interpreter's does), in
/// straight-line code that reads each launch value once; `None` without conditions. The
/// runtime calls it, as it would interpret the data, with the launch's checked values.
pub fn function(k: &Kernel<RTy>, krate: &syn::Path) -> TokenStream {
    let programs = programs(k);
    if programs.is_empty() {
        return quote!(::core::option::Option::None);
    }
    let ops = quote!(#krate::__private::fast_ops);
    let mut leaves: Vec<SymOp> = Vec::new();
    let mut conditions = Vec::new();
    for (bound, limit) in &programs {
        let (b, l) = (
            compiled(bound, &mut leaves, &ops),
            compiled(limit, &mut leaves, &ops),
        );
        conditions.push(quote!(#ops::less(#b, #l)));
    }
    let reads = leaves.iter().enumerate().map(|(i, leaf)| {
        let name = leaf_name(i);
        let value = match *leaf {
            SymOp::Scalar(p) => quote!(__gpu_values.scalar(#p)),
            SymOp::Extent { param, axis } => quote!(__gpu_values.extent(#param, #axis)),
            SymOp::Constant(c) => quote!(__gpu_values.constant(#c)),
            SymOp::BlockDim(a) => {
                let a = usize::from(a.min(2));
                quote!(__gpu_values.block()[#a])
            }
            SymOp::GridDim(a) => {
                let a = usize::from(a.min(2));
                quote!(__gpu_values.grid()[#a])
            }
            _ => unreachable!("only launch values are read"),
        };
        quote!(let #name: ::core::primitive::u64 = #value;)
    });
    quote! {
        ::core::option::Option::Some({
            #[allow(unused_parens, clippy::all)]
            fn __gpu_fast_path(__gpu_values: &dyn #ops::LaunchValues) -> bool {
                #(#reads)*
                #(#conditions)&&*
            }
            __gpu_fast_path as fn(&dyn #ops::LaunchValues) -> bool
        })
    }
}

fn leaf_name(i: usize) -> syn::Ident {
    quote::format_ident!("__gpu_v{}", i)
}

/// `ops` as one expression of `u64`, reading launch values through the names `leaves`
/// gives them (adding the ones it reads first).
fn compiled(ops: &[SymOp], leaves: &mut Vec<SymOp>, path: &TokenStream) -> TokenStream {
    let saturated = quote!(::core::primitive::u64::MAX);
    let mut stack: Vec<TokenStream> = Vec::new();
    for op in ops {
        let arity = match op {
            SymOp::Add | SymOp::Mul | SymOp::Min | SymOp::NoWrap => 2,
            SymOp::Div(_) | SymOp::Shr(_) | SymOp::Dec => 1,
            _ => 0,
        };
        if stack.len() < arity {
            return saturated;
        }
        let b = (arity == 2).then(|| stack.pop()).flatten();
        let a = (arity >= 1).then(|| stack.pop()).flatten();
        let value = match *op {
            SymOp::Const(c) => quote!(#c),
            SymOp::Scalar(_)
            | SymOp::Extent { .. }
            | SymOp::Constant(_)
            | SymOp::BlockDim(_)
            | SymOp::GridDim(_) => {
                let i = leaves.iter().position(|l| l == op).unwrap_or_else(|| {
                    leaves.push(*op);
                    leaves.len() - 1
                });
                let name = leaf_name(i);
                quote!(#name)
            }
            SymOp::Add => quote!(#path::sat_add(#a, #b)),
            SymOp::Mul => quote!(#path::sat_mul(#a, #b)),
            SymOp::Min => quote!(::core::cmp::min::<::core::primitive::u64>(#a, #b)),
            SymOp::NoWrap => quote!(#path::sat_unless(#a, #b)),
            SymOp::Div(0) => return saturated,
            SymOp::Div(c) => quote!(#path::sat_div(#a, #c)),
            SymOp::Shr(c) if c >= 64 => return saturated,
            SymOp::Shr(c) => quote!(#path::sat_shr(#a, #c)),
            SymOp::Dec => quote!(#path::sat_dec(#a)),
        };
        if stack.len() == gpu_contract::fast_path::STACK {
            return saturated;
        }
        stack.push(value);
    }
    match (stack.pop(), stack.is_empty()) {
        (Some(v), true) => v,
        _ => saturated,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_contract::fast_path::STACK;
    use SymOp::*;

    fn text(ops: &[SymOp]) -> String {
        compiled(ops, &mut Vec::new(), &quote!(f)).to_string()
    }

    /// Where the interpreter saturates a program (`gpu_contract::fast_path::evaluate`),
    /// the compiled form is the saturated value; elsewhere it computes.
    #[test]
    fn malformed_programs_saturate_as_interpreted() {
        let saturated = quote!(::core::primitive::u64::MAX).to_string();
        let deep = vec![Const(1); STACK + 1];
        for bad in [
            &[Add][..],
            &[Const(1), Add],
            &[Dec],
            &[Const(8), Div(0)],
            &[Const(8), Shr(64)],
            &[Const(1), Const(2)],
            &[],
            &deep,
        ] {
            assert_eq!(text(bad), saturated, "{bad:?}");
        }
        let mut full = vec![Const(1); STACK];
        full.extend([Add; STACK - 1]);
        assert_ne!(text(&full), saturated);
        // One read of a value named twice; operands in order.
        let min = text(&[
            Extent { param: 1, axis: 0 },
            Dec,
            Extent { param: 1, axis: 0 },
            Min,
        ]);
        let want = quote!(::core::cmp::min::<::core::primitive::u64>(
            f::sat_dec(__gpu_v0),
            __gpu_v0
        ));
        assert_eq!(min, want.to_string());
    }
}
