//! Tuples in statements: `let` of a tuple (of values, of a tuple-valued geometry call, of
//! a device function's tuple result), and `return` of one.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::{has_effects, strip_parens, tuple_geometry};
use super::{Expr, Lowerer, Position, Stmt};
use crate::ir::{Axis, ExprKind, Prim, Ty};

impl Lowerer<'_> {
    /// `let (x, y) = grid_2d();` and the other tuple-valued geometry calls.
    pub(super) fn let_tuple(
        &mut self,
        tuple: &syn::PatTuple,
        local: &syn::Local,
        out: &mut Vec<Stmt>,
    ) {
        if let Some(syn::Expr::Tuple(values)) = local.init.as_ref().map(|i| strip_parens(&i.expr)) {
            return self.let_tuple_values(tuple, values, out);
        }
        if let Some(syn::Expr::MethodCall(m)) = local.init.as_ref().map(|i| strip_parens(&i.expr)) {
            if m.method == "shape" && m.args.is_empty() {
                return self.let_shape(tuple, m, out);
            }
        }
        let geometry = local
            .init
            .as_ref()
            .and_then(|init| tuple_geometry(&init.expr));
        if let (None, Some(init)) = (geometry, &local.init) {
            if let syn::Expr::Call(_) = strip_parens(&init.expr) {
                return self.let_tuple_call(tuple, &init.expr, out);
            }
        }
        if let (None, Some(init)) = (geometry, &local.init) {
            if let syn::Expr::MethodCall(m) = strip_parens(&init.expr) {
                if m.method != "shape" {
                    let name = m.method.to_string();
                    let advice = super::advice::method_advice(&name);
                    self.err(
                        m.method.span(),
                        format!("method `{name}` gives no tuple in kernels; {advice}"),
                    );
                    self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
                    return;
                }
            }
        }
        let Some((g, arity)) = geometry else {
            self.err(
                tuple.span(),
                "tuple patterns take a tuple of values (`let (a, b) = (x, y);`), a device \
                 function's tuple (`let (a, b) = f(x);`), an array's `m.shape()` or one of \
                 `grid_2d()`, `grid_3d()`, `gridsize_2d()`, `gridsize_3d()`",
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        };
        let parts = [Axis::X, Axis::Y, Axis::Z].map(|a| ExprKind::Geometry(g, a));
        let parts = parts.into_iter().take(arity).collect();
        self.bind_usize_parts(tuple, parts, ("this call gives", "values"), out);
    }

    /// `let (rows, cols) = m.shape();` (`let (a, b, c) = v.shape();`) of a 2-D (3-D) array
    /// parameter: each name an extent.
    fn let_shape(&mut self, tuple: &syn::PatTuple, m: &syn::ExprMethodCall, out: &mut Vec<Stmt>) {
        let slice = match super::tables::method_receiver(m).and_then(|r| self.lookup(&r)) {
            Some(super::Binding::Slice(s)) if self.k.slices[s].rank() > 1 => s,
            _ => {
                self.err(
                    m.span(),
                    "`.shape()` gives the extents of a `DeviceArray2<T>` or `DeviceArray3<T>` parameter \
                     (`let (rows, cols) = m.shape();`); a 1-D array has `.len()`",
                );
                self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
                return;
            }
        };
        let rank = self.k.slices[slice].rank();
        let parts = (0..rank).map(|k| ExprKind::Extent(slice, k)).collect();
        self.bind_usize_parts(tuple, parts, ("this array has", "extents"), out);
    }

    /// Each name of `tuple` bound to the `usize` value of its part, in order (`_` skips
    /// one); a pattern of another length is an error (`what` names the source and its
    /// parts: "this array has" .. "extents").
    fn bind_usize_parts(
        &mut self,
        tuple: &syn::PatTuple,
        parts: Vec<ExprKind<Ty>>,
        what: (&str, &str),
        out: &mut Vec<Stmt>,
    ) {
        if tuple.elems.len() != parts.len() {
            let (source, noun) = what;
            self.err(
                tuple.span(),
                format!(
                    "{source} {} {noun}, but the pattern has {}",
                    parts.len(),
                    tuple.elems.len()
                ),
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        }
        for (elem, kind) in tuple.elems.iter().zip(parts) {
            match elem {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let e = Expr {
                        kind,
                        ty: Ty::Prim(Prim::Usize),
                        span: pi.span(),
                    };
                    let var = self.declare(
                        &unraw(&pi.ident),
                        Ty::Prim(Prim::Usize),
                        pi.ident.span(),
                        pi.mutability.is_some(),
                    );
                    out.push(Stmt::Let(var, Some(e)));
                }
                syn::Pat::Wild(_) => {}
                other => self.err(other.span(), "expected a name or `_`"),
            }
        }
    }

    /// `return (a, b);` in a device function returning a tuple (or `return g(x);` of a
    /// device function returning the same tuple).
    pub(super) fn return_tuple(&mut self, v: &syn::Expr) -> Option<Stmt> {
        let types = self.sig.ret_tuple.clone();
        match strip_parens(v) {
            syn::Expr::Tuple(t) if t.elems.len() == types.len() => {
                let mut elems = Vec::with_capacity(types.len());
                for (e, want) in t.elems.iter().zip(types) {
                    let e = self.expr(e, Position::Operand)?;
                    self.unify(want, e.ty, e.span);
                    elems.push(e);
                }
                let ty = self.types.fresh_opaque();
                let span = v.span();
                Some(Stmt::ReturnValue(Expr {
                    kind: ExprKind::Tuple(elems),
                    ty,
                    span,
                }))
            }
            syn::Expr::Call(_) => {
                let value = self.expr(v, Position::Operand)?;
                if matches!(value.kind, ExprKind::DeviceCall(..)) {
                    return Some(Stmt::ReturnValue(value));
                }
                self.err(
                    v.span(),
                    format!("return a tuple of {} values: `return (a, b);`", types.len()),
                );
                None
            }
            _ => {
                self.err(
                    v.span(),
                    format!(
                        "this device function returns a tuple of {} values: `return (a, b);`",
                        types.len()
                    ),
                );
                None
            }
        }
    }

    /// `let (a, b) = f(x);` of a device function returning a tuple: the call's value goes
    /// into a hidden local (C++'s `auto`), and each name reads its element.
    fn let_tuple_call(&mut self, tuple: &syn::PatTuple, init: &syn::Expr, out: &mut Vec<Stmt>) {
        let Some(call) = self.expr(init, Position::Operand) else {
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        };
        let span = call.span;
        let holder_ty = self.types.fresh_opaque();
        let holder = self.declare_hidden("tuple", holder_ty, span);
        out.push(Stmt::Let(holder, Some(call)));
        for (k, elem) in tuple.elems.iter().enumerate() {
            match elem {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let ty = self.types.fresh_opaque();
                    let mut part = tuple_part(holder, holder_ty, k, ty, span);
                    part.span = pi.span();
                    let var = self.declare(
                        &unraw(&pi.ident),
                        ty,
                        pi.ident.span(),
                        pi.mutability.is_some(),
                    );
                    out.push(Stmt::Let(var, Some(part)));
                }
                syn::Pat::Wild(_) => {}
                other => self.err(other.span(), "expected a name or `_`"),
            }
        }
    }

    /// The names a tuple `let` declared (the `Let`s in `stmts`, in the pattern's order,
    /// `_` skipped) take the annotation's types.
    pub(super) fn annotate_tuple(&mut self, stmts: &[Stmt], tuple: &syn::PatTuple, types: &[Ty]) {
        let named: Vec<Ty> = tuple
            .elems
            .iter()
            .zip(types)
            .filter(|(p, _)| !matches!(p, syn::Pat::Wild(_)))
            .map(|(_, &t)| t)
            .collect();
        let lets: Vec<(crate::ir::VarId, proc_macro2::Span)> = stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Let(v, _) => Some((*v, self.k.locals[*v].span)),
                _ => None,
            })
            .collect();
        // The names are the last `Let`s (the call form declares its holder first).
        let lets = &lets[lets.len().saturating_sub(named.len())..];
        for (&(v, span), &t) in lets.iter().zip(&named) {
            let ty = self.k.locals[v].ty;
            self.unify(t, ty, span);
        }
    }

    /// `let (a, b) = (x, y);`: every value is evaluated before any name is bound, so
    /// `let (a, b) = (b, a);` swaps.
    fn let_tuple_values(
        &mut self,
        tuple: &syn::PatTuple,
        values: &syn::ExprTuple,
        out: &mut Vec<Stmt>,
    ) {
        if tuple.elems.len() != values.elems.len() {
            self.err(
                values.span(),
                format!(
                    "the pattern has {} names but the tuple {} values",
                    tuple.elems.len(),
                    values.elems.len()
                ),
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        }
        let lowered: Vec<Option<Expr>> = values
            .elems
            .iter()
            .map(|v| self.expr(v, Position::Operand))
            .collect();
        for (pat, value) in tuple.elems.iter().zip(lowered) {
            match (pat, value) {
                (syn::Pat::Ident(pi), Some(v)) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let var = self.declare(
                        &unraw(&pi.ident),
                        v.ty,
                        pi.ident.span(),
                        pi.mutability.is_some(),
                    );
                    out.push(Stmt::Let(var, Some(v)));
                }
                (syn::Pat::Wild(_), Some(v)) => {
                    if has_effects(&v) {
                        out.push(Stmt::Eval(v));
                    }
                }
                (syn::Pat::Wild(_), None) => {}
                (other, value) => {
                    if value.is_some() {
                        self.err(other.span(), "expected a name or `_`");
                    }
                    self.poison_pattern(other);
                }
            }
        }
    }

    /// Bind every name in `pat` as already reported, so its uses are not reported again.
    pub(super) fn poison_pattern(&mut self, pat: &syn::Pat) {
        match pat {
            syn::Pat::Ident(pi) => self.declare_poisoned(&unraw(&pi.ident), pi.ident.span()),
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| self.poison_pattern(p)),
            syn::Pat::Type(t) => self.poison_pattern(&t.pat),
            _ => {}
        }
    }
}

/// Element `k` (of type `ty`) of the tuple in local `holder` (of type `holder_ty`).
pub(super) fn tuple_part(
    holder: crate::ir::VarId,
    holder_ty: Ty,
    k: usize,
    ty: Ty,
    span: proc_macro2::Span,
) -> Expr {
    Expr {
        kind: ExprKind::TuplePart(
            Box::new(Expr {
                kind: ExprKind::Local(holder),
                ty: holder_ty,
                span,
            }),
            k,
        ),
        ty,
        span,
    }
}
