//! Closures passed to device functions, both sides (see ARCHITECTURE.md, "Closures passed
//! to device functions"):
//!
//! - the caller's closure, `apply(|v| v * k, x)`, is an [`ExprKind::Lambda`]: its
//!   parameters are locals of its own, typed by annotation or by the body, its body a
//!   block lowered as any other, inside which `return`, barriers, warp functions, shared
//!   arrays and the tensor cores' operations are refused (the callee may call it under
//!   divergence, any number of times);
//! - the callee's closure parameter, `f: F` with `F: Fn(f32) -> f32`, is a local whose
//!   calls `f(x)` are [`ExprKind::ClosureCall`], typed by the bound; the closure itself may
//!   only be called or passed on to another device function.

use syn::spanned::Spanned;

use super::{Binding, Block, Expr, Lowerer, Position};
use crate::ir::{lambda_index, ExprKind, Lambda, Param, Prim, Ty, VarKind};
use crate::names::unraw;
use crate::parse::signature::scalar_type;

impl Lowerer<'_> {
    /// A device function's closure parameter `name` (`closures[index]` of the signature).
    pub(super) fn declare_closure_param(
        &mut self,
        name: String,
        index: usize,
        span: proc_macro2::Span,
    ) {
        let ty = self.types.fresh_opaque();
        let var = self.declare(&name, ty, span, false);
        self.closure_params.push((var, index));
        self.k.params.push(Param::Closure(var, index));
    }

    /// The closure parameter `c` calls (`f(x)`), if its callee names one.
    pub(super) fn called_closure(&self, c: &syn::ExprCall) -> Option<(crate::ir::VarId, usize)> {
        let syn::Expr::Path(p) = super::tables::strip_parens(&c.func) else {
            return None;
        };
        let name = unraw(p.path.get_ident()?);
        let Some(Binding::Local(v)) = self.lookup(&name) else {
            return None;
        };
        self.closure_params.iter().find(|(w, _)| *w == v).copied()
    }

    /// The closure parameter `v` (local `v`) named where it is not called: only as a device
    /// call's argument (passed on), else an error.
    pub(super) fn closure_param_value(
        &mut self,
        v: crate::ir::VarId,
        span: proc_macro2::Span,
        as_argument: bool,
    ) -> Option<Expr> {
        if !as_argument {
            self.err(
                span,
                format!(
                    "a closure parameter is called (`{0}(x)`) or passed on to a device \
                     function (`apply({0}, x)`); it cannot be copied or stored",
                    self.k.locals[v].rust_name
                ),
            );
            return None;
        }
        Some(Expr {
            kind: ExprKind::Local(v),
            ty: self.k.locals[v].ty,
            span,
        })
    }

    /// A closure parameter passed on by value beside a call of it in one call's arguments
    /// (`h(f(), f)`): Rust calls and copies it in the written order, C in either, and a
    /// closure with state would differ. An error saying what to write.
    pub(super) fn closure_passed_and_called(&mut self, args: &[Option<Expr>]) {
        fn calls(e: &Expr, f: crate::ir::VarId) -> bool {
            let mut found = matches!(e.kind, ExprKind::ClosureCall(g, _) if g == f);
            e.children(&mut |c| found = found || calls(c, f));
            found
        }
        for (k, a) in args.iter().enumerate() {
            let Some(Expr {
                kind: ExprKind::Local(f),
                span,
                ..
            }) = a
            else {
                continue;
            };
            if !self.closure_params.iter().any(|(w, _)| w == f) {
                continue;
            }
            let called = (args.iter().enumerate())
                .any(|(j, b)| j != k && b.as_ref().is_some_and(|b| calls(b, *f)));
            if called {
                let name = self.k.locals[*f].rust_name.clone();
                self.err(
                    *span,
                    format!(
                        "`{name}` is passed on and called in the same call, whose order the \
                         GPU's C leaves open: call it first (`let v = {name}(..);`) and pass \
                         `v`"
                    ),
                );
            }
        }
    }

    /// `f(a, b)` of the closure parameter `f`: its arguments of the bound's types, its
    /// value of the bound's result (`()`: only as a statement).
    pub(super) fn closure_call(&mut self, c: &syn::ExprCall, statement: bool) -> Option<Expr> {
        let (var, index) = self.called_closure(c)?;
        let span = c.span();
        let decl = self.sig.closures[index].clone();
        if c.args.len() != decl.params.len() {
            self.err(
                span,
                format!(
                    "`{}` takes {} argument(s), as its bound says",
                    self.k.locals[var].rust_name,
                    decl.params.len()
                ),
            );
            return None;
        }
        let mut args = Vec::new();
        for (a, &want) in c.args.iter().zip(&decl.params) {
            let e = self.expr(a, Position::Operand)?;
            self.unify(want, e.ty, e.span);
            args.push(e);
        }
        let ty = match decl.ret {
            Some(t) => t,
            None if statement => Ty::Prim(Prim::Bool),
            None => {
                self.err(
                    span,
                    format!(
                        "`{}` returns nothing, as its bound says; call it as a statement",
                        self.k.locals[var].rust_name
                    ),
                );
                return None;
            }
        };
        Some(Expr {
            kind: ExprKind::ClosureCall(var, args),
            ty,
            span,
        })
    }

    /// A closure as a device call's argument: a lambda (see the module's note).
    pub(super) fn lambda(&mut self, c: &syn::ExprClosure) -> Option<Expr> {
        let span = c.span();
        if let Some(m) = &c.movability {
            self.err(m.span(), "`static` closures are not supported in kernels");
            return None;
        }
        if c.asyncness.is_some() || c.lifetimes.is_some() {
            self.err(span, "write a plain closure here: `|v: f32| v * k`");
            return None;
        }
        let Some(index) = lambda_index(c) else {
            self.err(
                span,
                "a closure here is passed to a device function as an argument",
            );
            return None;
        };
        self.scopes.push(Vec::new());
        let mut params = Vec::new();
        let mut ok = true;
        for p in &c.inputs {
            match self.lambda_param(p) {
                Some(v) => params.push(v),
                None => ok = false,
            }
        }
        if !ok {
            self.scopes.pop();
            return None;
        }
        let ret = match &c.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, t) if matches!(&**t, syn::Type::Tuple(u) if u.elems.is_empty()) => {
                None
            }
            syn::ReturnType::Type(_, t) => {
                match scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags) {
                    Some(t) => Some(t),
                    None => {
                        ok = false;
                        None
                    }
                }
            }
        };
        // Inside, no loop of the caller's encloses it, and its own rules hold.
        let (loops, labels) = (self.loop_depth, std::mem::take(&mut self.labels));
        self.loop_depth = 0;
        self.lambda_depth += 1;
        let body = self.lambda_body(&c.body, ret, &c.output);
        self.lambda_depth -= 1;
        self.loop_depth = loops;
        self.labels = labels;
        self.scopes.pop();
        let (body, ret) = body?;
        if !ok {
            return None;
        }
        let lambda = Lambda {
            index,
            params,
            body,
            ret,
            by_copy: c.capture.is_some(),
        };
        // A `move` closure copies what it names; kernels copy no local array whole.
        if lambda.by_copy {
            let arrays = lambda.named_arrays();
            if let Some(&a) = arrays
                .iter()
                .find(|&&a| self.k.arrays[a].space == crate::ir::Space::Local)
            {
                self.err(
                    span,
                    format!(
                        "a `move` closure copies the local arrays it names, as `{}`, which \
                         kernels do not copy whole: drop `move` (the closure then uses the \
                         caller's array), or copy the elements it needs into locals first",
                        self.k.arrays[a].rust_name
                    ),
                );
                return None;
            }
        }
        Some(Expr {
            kind: ExprKind::Lambda(Box::new(lambda)),
            ty: self.types.fresh_opaque(),
            span,
        })
    }

    /// A lambda's parameter: `v`, `mut v`, `v: f32`; a local of the lambda.
    fn lambda_param(&mut self, p: &syn::Pat) -> Option<crate::ir::VarId> {
        let (pat, annotation) = match p {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            other => (other, None),
        };
        let syn::Pat::Ident(pi) = pat else {
            self.err(
                p.span(),
                "name a closure's parameter (`|v| ..`, `|v: f32| ..`) and take it apart in \
                 the body",
            );
            return None;
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            self.err(p.span(), "name a closure's parameter: `|v| ..`");
            return None;
        }
        let ty = match annotation {
            Some(t) => scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags)?,
            None => self.types.fresh(VarKind::Any),
        };
        let name = unraw(&pi.ident);
        let var = self.declare(&name, ty, pi.ident.span(), pi.mutability.is_some());
        Some(var)
    }

    /// A lambda's body and result type: a value block when it ends in a value, else a
    /// statement block (a closure returning `()`).
    fn lambda_body(
        &mut self,
        body: &syn::Expr,
        ret: Option<Ty>,
        output: &syn::ReturnType,
    ) -> Option<(Block, Option<Ty>)> {
        let block: syn::Block = match super::tables::strip_parens(body) {
            syn::Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
            // `|k| count += k`: an assignment is the closure's one statement. Made as a
            // tree, not re-read from tokens (`{ .. } as f32` would read as two statements).
            other => {
                let statement = super::tables::is_statement_like(other) || is_assignment(other);
                syn::Block {
                    brace_token: Default::default(),
                    stmts: vec![syn::Stmt::Expr(
                        other.clone(),
                        statement.then(Default::default),
                    )],
                }
            }
        };
        let unit_written = matches!(output, syn::ReturnType::Type(_, t)
            if matches!(&**t, syn::Type::Tuple(u) if u.elems.is_empty()));
        let value = !unit_written
            && matches!(block.stmts.last(), Some(syn::Stmt::Expr(e, None))
                if !super::tables::is_statement_like(e));
        if !value {
            if ret.is_some() {
                self.err(
                    body.span(),
                    "this closure's body ends without a value, but its result type is written: \
                     end it with the value",
                );
                return None;
            }
            return Some((self.unit_block(&block), None));
        }
        let (b, ty) = self.value_block(&block, Position::Top)?;
        if let Some(t) = ret {
            self.unify(t, ty, body.span());
        }
        Some((b, Some(ty)))
    }

    /// Whether the code being lowered is inside a closure handed to a device function; if
    /// so, `what` (a barrier, ...) is refused there, on `span`.
    pub(super) fn refused_in_lambda(&mut self, span: proc_macro2::Span, what: &str) -> bool {
        if self.lambda_depth == 0 {
            return false;
        }
        self.err(
            span,
            format!(
                "{what} cannot be inside a closure passed to a device function: the function \
                 may call it under a branch some threads do not take, or not at all; do this \
                 in the kernel, before or after the call"
            ),
        );
        true
    }
}

/// Whether `e` is an assignment, `x = v` or `x op= v`.
fn is_assignment(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Assign(_) => true,
        syn::Expr::Binary(b) => super::tables::compound_op(&b.op).is_some(),
        _ => false,
    }
}
