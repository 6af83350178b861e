//! `T::try_from(x).ok()` between integer types: an `Option` whose flag is whether `x`'s
//! value is a `T` (the prelude's `gt_try_fits_<t>`) and whose value is `x as T`. Desugaring
//! has turned the `Result`'s other readings (`unwrap_or`, `unwrap`, `is_ok`, `Ok(v)`
//! patterns, ..) into this one (`desugar/options.rs`); the simulator runs Rust's own.

use super::tables::strip_parens;
use super::{Expr, Lowerer, Position, Stmt};
use crate::ir::{Conversion, ExprKind, Prim, Ty, VarId};

/// The target type and the value of `T::try_from(x).ok()`, if `e` is one (`T` an integer
/// type by its name, `u8::try_from`, or `<u8>::try_from`).
pub(crate) fn try_from_ok(e: &syn::Expr) -> Option<(Prim, &syn::Expr)> {
    let syn::Expr::MethodCall(m) = strip_parens(e) else {
        return None;
    };
    if m.method != "ok" || !m.args.is_empty() {
        return None;
    }
    crate::desugar::try_from_call(&m.receiver)
}

impl Lowerer<'_> {
    /// `T::try_from(x).ok()` into the `Option` locals `dst`: `x` once, its test, its value.
    pub(super) fn try_from_into(
        &mut self,
        target: Prim,
        x: &syn::Expr,
        dst: (VarId, VarId),
        out: &mut Vec<Stmt>,
    ) {
        let Some(value) = self.expr(x, Position::Operand) else {
            return;
        };
        let span = value.span;
        let (some, dst_value) = dst;
        self.unify(self.k.locals[dst_value].ty, Ty::Prim(target), span);
        let held = self.declare_hidden("from", value.ty, span);
        let ty = value.ty;
        out.push(Stmt::Let(held, Some(value)));
        let read = Expr {
            kind: ExprKind::Local(held),
            ty,
            span,
        };
        let Some(test) = self.try_fits(target, read.clone()) else {
            return;
        };
        out.push(Stmt::Assign(crate::ir::Place::Local(some), None, test));
        let converted = Expr {
            kind: ExprKind::Convert(Conversion::As, Box::new(read)),
            ty: Ty::Prim(target),
            span,
        };
        out.push(Stmt::If(
            Expr {
                kind: ExprKind::Local(some),
                ty: Ty::Prim(Prim::Bool),
                span,
            },
            crate::ir::Block {
                stmts: vec![Stmt::Assign(
                    crate::ir::Place::Local(dst_value),
                    None,
                    converted,
                )],
                tail: None,
            },
            None,
        ));
    }

    /// Whether `c` is a `T::try_from(x)` read in no way the language knows (then an error
    /// saying what to write).
    pub(super) fn bare_try_from(&mut self, c: &syn::ExprCall) -> bool {
        if crate::desugar::try_from_call(&syn::Expr::Call(c.clone())).is_none() {
            return false;
        }
        self.err(
            syn::spanned::Spanned::span(c),
            "`try_from` gives a `Result`, which kernels read where it is made: `.ok()` (an \
             `Option`), `.unwrap_or(d)`, `.unwrap_or_default()`, `.unwrap()`, `.expect(\"..\")`, \
             `.is_ok()`, `.is_err()`, or `match`/`if let` on `Ok(v)` and `Err(_)`",
        );
        true
    }

    /// `x as T`: the value of `T::try_from(x).ok()` where its test has passed, so exact.
    pub(super) fn try_from_value(&mut self, target: Prim, x: &syn::Expr) -> Option<Expr> {
        let value = self.expr(x, Position::Operand)?;
        let span = value.span;
        Some(Expr {
            kind: ExprKind::Convert(Conversion::As, Box::new(value)),
            ty: Ty::Prim(target),
            span,
        })
    }

    /// `T::try_from(x).ok().is_some()`'s flag: whether `x`'s value is a `T`.
    pub(super) fn try_from_flag(&mut self, target: Prim, x: &syn::Expr) -> Option<Expr> {
        let value = self.expr(x, Position::Operand)?;
        self.try_fits(target, value)
    }

    /// The test that `value` (an integer) is a `target`.
    fn try_fits(&mut self, target: Prim, value: Expr) -> Option<Expr> {
        let span = value.span;
        let Some(spec) = gpu_contract::language::try_fits(target.rust_name()) else {
            self.err(span, "`try_from` here converts between integer types");
            return None;
        };
        Some(Expr {
            kind: ExprKind::Math(spec, vec![value]),
            ty: Ty::Prim(Prim::Bool),
            span,
        })
    }
}
