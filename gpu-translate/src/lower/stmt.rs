//! Statements: `let` (plain, tuple and array declarations), assignments, `if`, loops,
//! `break`/`continue`/`return`, blocks, and expressions evaluated for their effects.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::{
    call_name, compound_op, has_effects, is_array_init, strip_parens, tuple_geometry,
};
use super::{Block, Expr, Lowerer, Position, Stmt};
use crate::ir::{Axis, BinOp, ExprKind, ForLoop, Prim, Ty, VarKind};
use crate::parse::signature::scalar_type;

impl Lowerer<'_> {
    /// A block whose value is not used.
    pub(super) fn unit_block(&mut self, b: &syn::Block) -> Block {
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for s in &b.stmts {
            self.stmt(s, &mut stmts);
        }
        self.scopes.pop();
        Block { stmts, tail: None }
    }

    /// A block whose value is used: statements, then a tail expression.
    pub(super) fn value_block(&mut self, b: &syn::Block, pos: Position) -> Option<(Block, Ty)> {
        let Some((syn::Stmt::Expr(tail, None), init)) = b.stmts.split_last() else {
            self.err(
                b.span(),
                "this block must end in a value (an expression without `;`)",
            );
            return None;
        };
        if pos == Position::Operand && !init.is_empty() {
            self.err(
                b.span(),
                "a block with statements can only be the value of a `let` or an assignment; \
                 move the statements before this expression",
            );
            return None;
        }
        self.scopes.push(Vec::new());
        let mut stmts = Vec::new();
        for s in init {
            self.stmt(s, &mut stmts);
        }
        let tail = self.expr(tail, pos);
        self.scopes.pop();
        let tail = tail?;
        let ty = tail.ty;
        Some((
            Block {
                stmts,
                tail: Some(tail),
            },
            ty,
        ))
    }

    fn stmt(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        let line = s.span().start().line;
        if line > 0 {
            out.push(Stmt::Line(line as u32));
        }
        self.statement_attributes(s);
        let before = out.len();
        self.stmt_inner(s, out);
        // An assignment is translated or reported, never dropped without a word: a gap in
        // the lowering would otherwise compile a kernel that skips it. (After another
        // error, a dropped statement may be a follow-on of it, and the kernel fails
        // anyway.)
        let assignment = match s {
            syn::Stmt::Expr(syn::Expr::Assign(_), _) => true,
            syn::Stmt::Expr(syn::Expr::Binary(b), _) => super::tables::compound_op(&b.op).is_some(),
            _ => false,
        };
        if assignment && out.len() == before && self.diags.is_empty() {
            self.err(
                s.span(),
                "this assignment cannot be translated (nothing more specific was found to \
                 say; please report it); rewrite it through a local (`let mut v = ..;`)",
            );
        }
    }

    /// The attributes written before a statement: lint attributes (`#[allow(..)]`), doc
    /// comments and `#[unroll]` (checked where it applies) are accepted; any other is an
    /// error, since the translator would not apply it (a `#[cfg]` that rustc applies to
    /// the simulator's code would leave the two backends running different kernels).
    fn statement_attributes(&mut self, s: &syn::Stmt) {
        use quote::ToTokens;
        let mut tokens = s.to_token_stream().into_iter().peekable();
        while let Some(proc_macro2::TokenTree::Punct(p)) = tokens.peek() {
            if p.as_char() != '#' {
                break;
            }
            let hash = p.span();
            tokens.next();
            let Some(proc_macro2::TokenTree::Group(g)) = tokens.next() else {
                break;
            };
            let name = g
                .stream()
                .into_iter()
                .next()
                .map(|t| t.to_string())
                .unwrap_or_default();
            const ACCEPTED: &[&str] = &[
                "unroll", "allow", "warn", "deny", "forbid", "expect", "doc", "rustfmt",
            ];
            if ACCEPTED.contains(&name.as_str()) {
                continue;
            }
            let span = hash.join(g.span()).unwrap_or(g.span());
            let what = if name == "cfg" || name == "cfg_attr" {
                "`#[cfg]` on a statement is not applied to the GPU's code; choose through a \
                 module constant instead (`const S: f32 = if cfg!(debug_assertions) { 2.0 } \
                 else { 1.0 };` outside the kernel, `S` in it)"
                    .to_owned()
            } else {
                format!(
                    "`#[{name}]` on a statement in a kernel is not applied; kernels accept \
                     `#[unroll]` on `for` loops and lint attributes (`#[allow(..)]`)"
                )
            };
            self.err(span, what);
        }
    }

    fn stmt_inner(&mut self, s: &syn::Stmt, out: &mut Vec<Stmt>) {
        match s {
            syn::Stmt::Local(local) => self.let_stmt(local, out),
            syn::Stmt::Item(item) => self.err(
                item.span(),
                "items (functions, structs, `use`, ...) cannot be declared inside a kernel; \
                 declare them outside it",
            ),
            syn::Stmt::Macro(m) => {
                if let Some(s) = self.statement_macro(&m.mac) {
                    out.push(s);
                }
            }
            syn::Stmt::Expr(e, _) => {
                if let Some(s) = self.stmt_expr(e) {
                    out.push(s);
                }
            }
        }
    }

    /// A macro as a statement: `println!` and `print!`, or an error.
    fn statement_macro(&mut self, mac: &syn::Macro) -> Option<Stmt> {
        let name = mac.path.segments.last().map(|s| s.ident.to_string());
        match name.as_deref() {
            Some("println") => self.print(mac, true),
            Some("print") => self.print(mac, false),
            _ => {
                self.macro_error(mac.path.span(), mac);
                None
            }
        }
    }

    pub(super) fn macro_error(&mut self, span: proc_macro2::Span, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        self.err(
            span,
            format!(
                "macros such as `{name}!` cannot be used in a kernel; the kernel language has \
                 `println!` and `print!` as statements, and no other macros"
            ),
        );
    }

    fn let_stmt(&mut self, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(init) = &local.init {
            if let Some((_, diverge)) = &init.diverge {
                self.err(diverge.span(), "`let ... else` is not supported in kernels");
                return;
            }
        }
        let (pat, annotation) = match &local.pat {
            syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
            p => (p, None),
        };
        if let (syn::Pat::Ident(pi), Some(init)) = (pat, &local.init) {
            if is_array_init(&init.expr)
                || annotation.is_some_and(|t| matches!(t, syn::Type::Array(_)))
            {
                self.let_array(pi, &init.expr, annotation, out);
                return;
            }
        }
        // `let (a, b): (f32, u32) = ...;`
        if let (syn::Pat::Tuple(tuple), Some(syn::Type::Tuple(types))) = (pat, annotation) {
            let types: Option<Vec<Ty>> = types
                .elems
                .iter()
                .map(|t| scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags))
                .collect();
            match types {
                Some(types) if types.len() == tuple.elems.len() => {
                    let start = out.len();
                    self.let_tuple(tuple, local, out);
                    self.annotate_tuple(&out[start..], tuple, &types);
                }
                Some(_) => {
                    self.err(
                        annotation.map_or(tuple.span(), |a| a.span()),
                        "the annotation and the pattern have different lengths",
                    );
                    self.poison_pattern(pat);
                }
                None => self.poison_pattern(pat),
            }
            return;
        }
        let annotated = match annotation {
            Some(t) => match scalar_type(t, &self.sig.generics, &self.sig.structs, self.diags) {
                Some(ty) => Some(ty),
                None => {
                    self.poison_pattern(pat);
                    return;
                }
            },
            None => None,
        };
        match pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let name = unraw(&pi.ident);
                let init = match &local.init {
                    Some(init) => match self.expr(&init.expr, Position::Top) {
                        Some(e) => Some(e),
                        None => {
                            self.declare_poisoned(&name, pi.ident.span());
                            return;
                        }
                    },
                    None => None,
                };
                let ty = match (annotated, &init) {
                    (Some(t), Some(e)) => {
                        self.unify(t, e.ty, e.span);
                        t
                    }
                    (Some(t), None) => t,
                    (None, Some(e)) => e.ty,
                    (None, None) => self.types.fresh(VarKind::Any),
                };
                let mutable = pi.mutability.is_some() || init.is_none();
                let var = self.declare(&name, ty, pi.ident.span(), mutable);
                out.push(Stmt::Let(var, init));
            }
            syn::Pat::Tuple(tuple) => self.let_tuple(tuple, local, out),
            syn::Pat::Wild(w) => match &local.init {
                // `let _ = e;` keeps e's effects (an atomic, a barrier), as in Rust.
                Some(init) => {
                    if let Some(e) = self.expr(&init.expr, Position::Operand) {
                        if has_effects(&e) {
                            out.push(Stmt::Eval(e));
                        }
                    }
                }
                None => self.err(w.span(), "`let _;` declares nothing"),
            },
            other => self.err(
                other.span(),
                "only plain names (`let x`, `let mut x: f32`) and `let (x, y) = grid_2d();` are \
                 supported as `let` patterns in kernels",
            ),
        }
    }

    /// `let (x, y) = grid_2d();` and the other tuple-valued geometry calls.
    fn let_tuple(&mut self, tuple: &syn::PatTuple, local: &syn::Local, out: &mut Vec<Stmt>) {
        if let Some(syn::Expr::Tuple(values)) = local.init.as_ref().map(|i| strip_parens(&i.expr)) {
            return self.let_tuple_values(tuple, values, out);
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
        let Some((g, arity)) = geometry else {
            self.err(
                tuple.span(),
                "tuple patterns take a tuple of values (`let (a, b) = (x, y);`), a device \
                 function's tuple (`let (a, b) = f(x);`) or one of `grid_2d()`, `grid_3d()`, \
                 `gridsize_2d()`, `gridsize_3d()`",
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        };
        if tuple.elems.len() != arity {
            self.err(
                tuple.span(),
                format!(
                    "this call gives {arity} values, but the pattern has {}",
                    tuple.elems.len()
                ),
            );
            self.poison_pattern(&syn::Pat::Tuple(tuple.clone()));
            return;
        }
        for (elem, axis) in tuple.elems.iter().zip([Axis::X, Axis::Y, Axis::Z]) {
            match elem {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    let e = Expr {
                        kind: ExprKind::Geometry(g, axis),
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
    fn return_tuple(&mut self, v: &syn::Expr) -> Option<Stmt> {
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
                    let part = Expr {
                        kind: ExprKind::TuplePart(
                            Box::new(Expr {
                                kind: ExprKind::Local(holder),
                                ty: holder_ty,
                                span,
                            }),
                            k,
                        ),
                        ty,
                        span: pi.span(),
                    };
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
    fn annotate_tuple(&mut self, stmts: &[Stmt], tuple: &syn::PatTuple, types: &[Ty]) {
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

    /// An expression in statement position.
    fn stmt_expr(&mut self, e: &syn::Expr) -> Option<Stmt> {
        match e {
            syn::Expr::Assign(a) => {
                let value = self.expr(&a.right, Position::Top);
                let place = self.place(&a.left);
                let (place, value) = (place?, value?);
                let pty = self.place_ty(&place);
                self.unify(pty, value.ty, value.span);
                Some(Stmt::Assign(place, None, value))
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let op = compound_op(&b.op)?;
                let value = self.expr(&b.right, Position::Operand);
                let place = self.place(&b.left);
                let (place, value) = (place?, value?);
                let pty = self.place_ty(&place);
                if matches!(op, BinOp::Shl | BinOp::Shr) {
                    let int = self.types.fresh(VarKind::Int);
                    self.unify(value.ty, int, value.span);
                } else {
                    self.unify(pty, value.ty, value.span);
                }
                Some(Stmt::Assign(place, Some(op), value))
            }
            syn::Expr::If(i) => self.if_stmt(i),
            syn::Expr::While(w) => {
                self.no_unroll(&w.attrs);
                if let Some(l) = &w.label {
                    self.err(l.span(), "loop labels are not supported in kernels yet");
                }
                if let syn::Expr::Let(l) = &*w.cond {
                    self.err(
                        l.span(),
                        "`while let` is not supported in kernels; use `while` with a condition",
                    );
                    return None;
                }
                let cond = self.bool_expr(&w.cond);
                self.loop_depth += 1;
                let body = self.unit_block(&w.body);
                self.loop_depth -= 1;
                Some(Stmt::While(cond?, body))
            }
            syn::Expr::Loop(l) => {
                self.no_unroll(&l.attrs);
                if let Some(lb) = &l.label {
                    self.err(lb.span(), "loop labels are not supported in kernels yet");
                }
                self.loop_depth += 1;
                let body = self.unit_block(&l.body);
                self.loop_depth -= 1;
                Some(Stmt::Loop(body))
            }
            syn::Expr::ForLoop(f) => self.for_stmt(f),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "block labels are not supported in kernels");
                }
                Some(Stmt::Block(self.unit_block(&b.block)))
            }
            syn::Expr::Unsafe(u) => {
                self.unsafe_depth += 1;
                let block = self.unit_block(&u.block);
                self.unsafe_depth -= 1;
                Some(Stmt::Block(block))
            }
            syn::Expr::Break(b) => {
                if let Some(l) = &b.label {
                    self.err(l.span(), "loop labels are not supported in kernels yet");
                }
                if let Some(v) = &b.expr {
                    self.err(v.span(), "`break` with a value is not supported in kernels");
                }
                if self.loop_depth == 0 {
                    self.err(b.span(), "`break` outside of a loop");
                }
                Some(Stmt::Break)
            }
            syn::Expr::Continue(c) => {
                if let Some(l) = &c.label {
                    self.err(l.span(), "loop labels are not supported in kernels yet");
                }
                if self.loop_depth == 0 {
                    self.err(c.span(), "`continue` outside of a loop");
                }
                Some(Stmt::Continue)
            }
            syn::Expr::Return(r) if !self.sig.ret_tuple.is_empty() => match &r.expr {
                Some(v) => self.return_tuple(v),
                None => {
                    self.err(
                        r.span(),
                        "this device function returns a tuple: `return (a, b);`",
                    );
                    None
                }
            },
            syn::Expr::Return(r) => match (&r.expr, self.sig.ret) {
                (Some(v), Some(ret)) => {
                    let value = self.expr(v, Position::Top)?;
                    self.unify(ret, value.ty, value.span);
                    Some(Stmt::ReturnValue(value))
                }
                (Some(v), None) => {
                    self.err(
                        v.span(),
                        "a kernel cannot return a value; write results into a `&mut [T]` parameter",
                    );
                    None
                }
                (None, Some(_)) => {
                    self.err(
                        r.span(),
                        "this device function returns a value: `return value;`",
                    );
                    None
                }
                (None, None) => Some(Stmt::Return),
            },
            syn::Expr::Macro(m) => self.statement_macro(&m.mac),
            // A barrier, fence or atomic: evaluated for its effect.
            syn::Expr::Call(c)
                if call_name(c)
                    .is_some_and(|n| gpu_contract::language::intrinsic(&n).is_some()) =>
            {
                let name = call_name(c)?;
                self.intrinsic_call(&name, c, true).map(Stmt::Eval)
            }
            syn::Expr::Call(c) if call_name(c).as_deref() == Some("store4") => self.vector_store(c),
            // An expression evaluated for its effects only: keep them (`(atomic_add(..));`),
            // drop the rest.
            other => self
                .expr(other, Position::Operand)
                .filter(has_effects)
                .map(Stmt::Eval),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> Option<Stmt> {
        if let syn::Expr::Let(l) = &*i.cond {
            self.err(
                l.span(),
                "`if let` is not supported in kernels; use a condition",
            );
            return None;
        }
        let cond = self.bool_expr(&i.cond);
        let then = self.unit_block(&i.then_branch);
        let els = match &i.else_branch {
            None => None,
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) => Some(self.unit_block(&b.block)),
                syn::Expr::If(inner) => self.if_stmt(inner).map(|s| Block {
                    stmts: vec![s],
                    tail: None,
                }),
                other => {
                    self.err(other.span(), "expected a block or `if` after `else`");
                    None
                }
            },
        };
        Some(Stmt::If(cond?, then, els))
    }

    /// `#[unroll]` or `#[unroll(n)]` on a `for` loop: NVRTC's `#pragma unroll`.
    fn unroll(&mut self, attrs: &[syn::Attribute]) -> Option<Option<u32>> {
        let mut unroll = None;
        for a in attrs.iter().filter(|a| a.path().is_ident("unroll")) {
            let by = match &a.meta {
                syn::Meta::Path(_) => Some(None),
                syn::Meta::List(l) => match syn::parse2::<syn::LitInt>(l.tokens.clone())
                    .ok()
                    .and_then(|n| n.base10_parse::<u32>().ok())
                {
                    Some(n) if n >= 1 => Some(Some(n)),
                    _ => None,
                },
                syn::Meta::NameValue(_) => None,
            };
            match by {
                Some(_) if unroll.is_some() => {
                    self.err(a.span(), "`#[unroll]` is given twice");
                }
                Some(b) => unroll = Some(b),
                None => self.err(
                    a.span(),
                    "write `#[unroll]` (every iteration) or `#[unroll(4)]` (a factor, an \
                     integer literal of at least 1)",
                ),
            }
        }
        unroll
    }

    /// `#[unroll]` on a `while` or `loop`, whose trip count NVRTC cannot know: refused.
    fn no_unroll(&mut self, attrs: &[syn::Attribute]) {
        if let Some(a) = attrs.iter().find(|a| a.path().is_ident("unroll")) {
            self.err(
                a.span(),
                "`#[unroll]` goes on a `for` loop over a range (`#[unroll] for k in 0..8`)",
            );
        }
    }

    fn for_stmt(&mut self, f: &syn::ExprForLoop) -> Option<Stmt> {
        let unroll = self.unroll(&f.attrs);
        if let Some(l) = &f.label {
            self.err(l.span(), "loop labels are not supported in kernels yet");
        }
        let ident = match &*f.pat {
            syn::Pat::Ident(pi)
                if pi.by_ref.is_none() && pi.subpat.is_none() && pi.mutability.is_none() =>
            {
                pi.ident.clone()
            }
            // `for _ in 0..n`: a counter nobody reads.
            syn::Pat::Wild(w) => syn::Ident::new("unused_counter", w.underscore_token.span),
            other => {
                self.err(
                    other.span(),
                    "the loop variable of a kernel `for` must be a plain name",
                );
                return None;
            }
        };
        // `a..b` or `(a..b).step_by(s)`.
        let (range_expr, step) = match &*f.expr {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), Some(&m.args[0]))
            }
            e => (strip_parens(e), None),
        };
        let syn::Expr::Range(range) = range_expr else {
            self.err(
                f.expr.span(),
                "kernel `for` loops iterate over a range: `for i in a..b` or \
                 `for i in (a..b).step_by(s)`",
            );
            return None;
        };
        if let syn::RangeLimits::Closed(t) = range.limits {
            self.err(
                t.span(),
                "inclusive ranges `a..=b` are not supported in kernels yet; write `a..b + 1`",
            );
            return None;
        }
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            self.err(range.span(), "kernel ranges need both ends: `a..b`");
            return None;
        };
        let start = self.expr(start, Position::Operand);
        let end = self.expr(end, Position::Operand);
        let step = step.and_then(|s| {
            let e = self.expr(s, Position::Operand)?;
            self.unify(e.ty, Ty::Prim(Prim::Usize), e.span);
            Some(e)
        });
        let (start, end) = (start?, end?);
        self.unify(start.ty, end.ty, end.span);
        if let Some(VarKind::Any) = self.types.var_kind(start.ty) {
            // A range of un-annotated variables: Rust would need to know they are integers.
            let int = self.types.fresh(VarKind::Int);
            self.unify(start.ty, int, start.span);
        }
        self.scopes.push(Vec::new());
        let rust_name = unraw(&ident);
        let var = self.declare(&rust_name, start.ty, ident.span(), false);
        let end_c_name = self.names.fresh(&format!("{rust_name}_end"));
        let step_c_name = self.names.fresh(&format!("{rust_name}_step"));
        self.loop_depth += 1;
        let body = self.unit_block(&f.body);
        self.loop_depth -= 1;
        self.scopes.pop();
        Some(Stmt::For(Box::new(ForLoop {
            var,
            end_c_name,
            step_c_name,
            start,
            end,
            step,
            body,
            unroll,
        })))
    }
}
