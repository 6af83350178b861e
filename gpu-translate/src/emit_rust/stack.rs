//! The bytes of a function's own locals per thread, as a `u64` constant expression for
//! its definition: every local array (a dtype parameter's elements at the largest dtype
//! its bound allows), whose extents may be module constants or const parameters, so
//! rustc evaluates the sum, and every value of a `#[gpu_struct]` at its layout's size:
//! each local and parameter, each expression that makes a struct value and each struct
//! argument of a call (a debug build gives every temporary its own stack slot), each result of a device function that nothing
//! types at the largest return of the functions it calls. Scalar locals are left out: on
//! the GPU they live in registers, and on the simulator the stack's fixed part covers them
//! (`gpu-runtime`'s `backend/sim/stack.rs`). The runtime adds the deepest chain of device
//! functions and checks a kernel's total against a GPU thread's local memory
//! (`gpu-runtime`'s `def/stack.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use super::consts::{dim_tokens, elem_size};
use crate::ir::{Block, Expr, ExprKind, Kernel, PrintPiece, RTy, Space, Stmt};
use crate::parse::signature::KernelSignature;

/// A function's own local bytes, as expressions for its module (one level down from the
/// function).
#[derive(Clone, Debug, Default)]
pub struct OwnBytes {
    /// The local arrays' bytes, a `u64` constant expression (empty: none).
    pub arrays: TokenStream,
    /// The `#[gpu_struct]` values' bytes.
    pub structs: u64,
    /// How many values have a type only rustc knows (a device function's untyped result).
    pub opaque: u64,
}

impl OwnBytes {
    /// The arrays' bytes (`0` when there are none).
    pub fn arrays(&self) -> TokenStream {
        if self.arrays.is_empty() {
            quote!(0)
        } else {
            self.arrays.clone()
        }
    }

    /// Everything: arrays, structs, and the untyped values at the largest return of
    /// the functions `deps` (the callees' definitions).
    pub fn total(&self, krate: &syn::Path, deps: &[TokenStream]) -> TokenStream {
        let arrays = self.arrays();
        let beside = self.beside_arrays(krate, deps);
        quote!(::core::primitive::u64::saturating_add(#arrays, #beside))
    }

    /// The bytes beside the arrays: the structs, and the untyped values as
    /// [`total`](Self::total) counts them.
    pub fn beside_arrays(&self, krate: &syn::Path, deps: &[TokenStream]) -> TokenStream {
        let (structs, n) = (self.structs, self.opaque);
        if n == 0 {
            return quote!(#structs);
        }
        quote!(::core::primitive::u64::saturating_add(
            #structs,
            ::core::primitive::u64::saturating_mul(
                #n,
                #krate::__private::largest_return(&[#(#deps),*])
            )
        ))
    }
}

/// The bytes of `k`'s own locals.
pub fn own_local_bytes(
    k: &Kernel<RTy>,
    sig: &KernelSignature,
    item: &str,
    krate: &syn::Path,
) -> OwnBytes {
    let mut values = Values {
        sig,
        structs: 0,
        opaque: 0,
    };
    for l in &k.locals {
        values.value(l.ty);
    }
    // An `Option` parameter's pair is a copy of its value besides the value local.
    for p in &k.params {
        if let crate::ir::Param::Option(_, v, _) = *p {
            values.value(k.locals[v].ty);
        }
    }
    values.block(&k.body);
    let arrays = k
        .arrays
        .iter()
        .filter(|a| a.space == Space::Local)
        .map(|a| {
            let elem = elem_size(a.elem, sig);
            let dims = a.dims.iter().map(|&d| dim_tokens(k, d, item, true));
            quote!((#elem, &[#(#dims),*]))
        });
    OwnBytes {
        arrays: quote!(#krate::__private::array_bytes(&[#(#arrays),*])),
        structs: values.structs,
        opaque: values.opaque,
    }
}

/// Whether `e` names a place (a local, a field of one) rather than making a value.
fn names_a_place(e: &Expr<RTy>) -> bool {
    matches!(
        e.kind,
        ExprKind::Local(_) | ExprKind::Field(..) | ExprKind::Receiver(..) | ExprKind::Borrow(..)
    )
}

/// The struct-typed and untyped values of a body.
struct Values<'a> {
    sig: &'a KernelSignature,
    structs: u64,
    opaque: u64,
}

impl Values<'_> {
    fn value(&mut self, t: RTy) {
        match t {
            RTy::Struct(_) => {
                self.structs = self.structs.saturating_add(elem_size(t, self.sig));
            }
            RTy::Opaque => self.opaque += 1,
            _ => {}
        }
    }

    fn block(&mut self, b: &Block<RTy>) {
        b.stmts.iter().for_each(|s| self.stmt(s));
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }

    fn stmt(&mut self, s: &Stmt<RTy>) {
        match s {
            Stmt::Let(_, Some(e))
            | Stmt::DeclareArray(_, Some(e))
            | Stmt::Eval(e)
            | Stmt::ReturnValue(e)
            | Stmt::Assign(_, _, e) => self.expr(e),
            Stmt::Store4(_, _, es) => es.iter().for_each(|e| self.expr(e)),
            Stmt::If(c, t, e) => {
                self.expr(c);
                self.block(t);
                if let Some(e) = e {
                    self.block(e);
                }
            }
            Stmt::While(c, b) => {
                self.expr(c);
                self.block(b);
            }
            Stmt::Loop(b) | Stmt::Block(b) => self.block(b),
            Stmt::For(l) => {
                self.expr(&l.start);
                self.expr(&l.end);
                if let Some(s) = &l.step {
                    self.expr(s);
                }
                self.block(&l.body);
            }
            Stmt::Labelled(_, inner) => self.stmt(inner),
            Stmt::Print(_, pieces) => {
                for p in pieces {
                    if let PrintPiece::Value(e, _) = p {
                        self.expr(e);
                    }
                }
            }
            Stmt::Panic(p) => p.values.iter().for_each(|e| self.expr(e)),
            _ => {}
        }
    }

    fn expr(&mut self, e: &Expr<RTy>) {
        // A local or a field of one names a place: a copy only as a call's argument.
        if !names_a_place(e) && !matches!(e.kind, ExprKind::Lambda(_)) {
            self.value(e.ty);
        }
        match &e.kind {
            // A closure passed to a device function: a reference per local it captures,
            // and room for the arrays' pointers and extents, then its body's values.
            ExprKind::Lambda(l) => {
                let captures = l.captures().0.len() as u64;
                self.structs = (self.structs)
                    .saturating_add(8 * captures)
                    .saturating_add(64);
                self.block(&l.body);
            }
            ExprKind::DeviceCall(_, _, args) => {
                for a in args {
                    if names_a_place(a) {
                        self.value(a.ty);
                    }
                    // An `Option` argument's pair holds a copy of its value.
                    if let ExprKind::Tuple(parts) = &a.kind {
                        if let Some(v) = parts.get(1) {
                            self.value(v.ty);
                        }
                    }
                    self.expr(a);
                }
            }
            // A value block's statements are not operands: walked as a block.
            ExprKind::If(c, t, x) => {
                self.expr(c);
                self.block(t);
                self.block(x);
            }
            ExprKind::Block(b) => self.block(b),
            _ => e.children(&mut |x| self.expr(x)),
        }
    }
}
