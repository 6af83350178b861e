//! `Option<T>` lowered into the core: an `Option` local is two locals, whether it holds a
//! value (`bool`) and the value (of `T`, read only where the flag is set), and an
//! expression that makes one (`Some(x)`, `None`, another `Option` local, `a.checked_add(b)`,
//! an `if` or block ending in one, a `#[gpu_device]` function's `Option` result) is
//! lowered into assignments of the two. Desugaring has already turned every way of reading
//! one (`match`, `if let`, `unwrap_or`, ..) into `o.is_some()`, `o.is_none()` and
//! `__gpu_some_value(o)`, which read the locals. A device function returning `Option<T>`
//! returns the pair as a tuple (the C's `gt_tuple2<bool, T>`).
//!
//! The simulator runs the same desugared Rust with Rust's own `Option`.

use syn::spanned::Spanned;

use super::tables::strip_parens;
use super::{Binding, Block, Expr, Lowerer, Position, Stmt};
use crate::ir::{BinOp, ExprKind, Lit, Place, Prim, Ty, UnOp, VarId, VarKind};
use crate::names::unraw;

/// The checked arithmetic methods that give an `Option`, with the operator each applies
/// where the result fits.
const CHECKED: &[(&str, BinOp)] = &[
    ("checked_add", BinOp::Add),
    ("checked_sub", BinOp::Sub),
    ("checked_mul", BinOp::Mul),
    ("checked_div", BinOp::Div),
    ("checked_rem", BinOp::Rem),
];

/// What to write instead of an `Option` used as a plain value.
const READ_ADVICE: &str = "read it with `match`, `if let Some(x) = o`, `o.unwrap_or(d)`, \
                           `o.is_some()` or `o.unwrap()`";

pub(super) use crate::parse::signature::option_element;

impl Lowerer<'_> {
    /// Whether `e` makes an `Option`, as far as its form shows (an un-annotated `let` of
    /// it declares an `Option` local).
    pub(super) fn is_option_expr(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Call(c) => {
                matches!(&*c.func, syn::Expr::Path(p) if crate::names::is_option_variant(&p.path, "Some"))
            }
            syn::Expr::Path(p) => {
                crate::names::is_option_variant(&p.path, "None")
                    || p.path.get_ident().is_some_and(|i| {
                        matches!(self.lookup(&unraw(i)), Some(Binding::Option(..)))
                    })
            }
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                super::try_from::try_from_ok(e).is_some()
                    || CHECKED.iter().any(|(n, _)| *n == name)
                    || ((name == "copied" || name == "cloned") && self.is_option_expr(&m.receiver))
            }
            syn::Expr::Block(b) if b.label.is_none() => self.is_option_block(&b.block),
            syn::Expr::If(i) => {
                self.is_option_block(&i.then_branch)
                    || i.else_branch
                        .as_ref()
                        .is_some_and(|(_, e)| self.is_option_expr(e))
            }
            _ => false,
        }
    }

    /// Whether block `b` ends in an `Option`: its tail is one, or names a local the block
    /// declares as one.
    fn is_option_block(&self, b: &syn::Block) -> bool {
        let Some(syn::Stmt::Expr(tail, None)) = b.stmts.last() else {
            return false;
        };
        if self.is_option_expr(tail) {
            return true;
        }
        let syn::Expr::Path(p) = strip_parens(tail) else {
            return false;
        };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        // The last `let` of the name (an earlier one is shadowed).
        let last = b.stmts.iter().rev().find_map(|s| match s {
            syn::Stmt::Local(l) => {
                let (pat, ty) = match &l.pat {
                    syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
                    p => (p, None),
                };
                matches!(pat, syn::Pat::Ident(pi) if pi.ident == *name).then_some((l, ty))
            }
            _ => None,
        });
        last.is_some_and(|(l, ty)| {
            ty.is_some_and(|t| option_element(t).is_some())
                || l.init
                    .as_ref()
                    .is_some_and(|i| self.is_option_expr(&i.expr))
                || (l.init.is_none() && self.assigned_option(&b.stmts, &unraw(name)))
        })
    }

    /// Notes the locals of `stmts` declared without a value (`let mut r;`) that a later
    /// statement assigns an `Option` (`r = Some(i);`, anywhere inside); returns the length
    /// of [`Lowerer::late_options`] before, to restore after the block.
    pub(super) fn note_late_options(&mut self, stmts: &[syn::Stmt]) -> usize {
        let before = self.late_options.len();
        for (k, s) in stmts.iter().enumerate() {
            let syn::Stmt::Local(l) = s else { continue };
            let syn::Pat::Ident(pi) = &l.pat else {
                continue;
            };
            if l.init.is_some() {
                continue;
            }
            let name = unraw(&pi.ident);
            if self.assigned_option(&stmts[k + 1..], &name) {
                self.late_options.push(name);
            }
        }
        before
    }

    /// Whether a statement of `stmts` (anywhere inside) assigns `name` an `Option`.
    fn assigned_option(&self, stmts: &[syn::Stmt], name: &str) -> bool {
        let mut finder = OptionAssignments {
            name,
            lowerer: self,
            found: false,
        };
        for s in stmts {
            syn::visit::Visit::visit_stmt(&mut finder, s);
        }
        finder.found
    }

    /// `let o = e;` (or `let o: Option<T> = e;`, `let mut o = None;`) of an `Option`.
    pub(super) fn option_let(
        &mut self,
        pi: &syn::PatIdent,
        element: Option<Ty>,
        init: Option<&syn::Expr>,
        out: &mut Vec<Stmt>,
    ) {
        let name = unraw(&pi.ident);
        let span = pi.ident.span();
        let elem = element.unwrap_or_else(|| self.types.fresh(VarKind::Any));
        let (some, value) = self.option_locals(&name, elem, span);
        out.push(Stmt::Let(some, Some(bool_lit(false, span))));
        out.push(Stmt::Let(value, None));
        if let Some(e) = init {
            self.option_into(e, (some, value), out);
        }
        self.bind(name, Binding::Option(some, value));
    }

    /// The two locals of an `Option` named `name` with values of type `elem`.
    pub(super) fn option_locals(
        &mut self,
        name: &str,
        elem: Ty,
        span: proc_macro2::Span,
    ) -> (VarId, VarId) {
        let some = self.declare_hidden(&format!("{name}_some"), Ty::Prim(Prim::Bool), span);
        let value = self.declare_hidden(name, elem, span);
        self.k.locals[some].mutable = true;
        self.k.locals[value].mutable = true;
        (some, value)
    }

    /// `o = e;` of an `Option` local: `None` when `place` is not one.
    pub(super) fn option_assign(&mut self, place: &syn::Expr, value: &syn::Expr) -> Option<Stmt> {
        let syn::Expr::Path(p) = strip_parens(place) else {
            return None;
        };
        let Some(Binding::Option(some, v)) = self.lookup(&unraw(p.path.get_ident()?)) else {
            return None;
        };
        let mut stmts = Vec::new();
        self.option_into(value, (some, v), &mut stmts);
        Some(Stmt::Block(Block { stmts, tail: None }))
    }

    /// The statements that make `dst` (an `Option`'s flag and value locals) what `e` makes.
    pub(super) fn option_into(&mut self, e: &syn::Expr, dst: (VarId, VarId), out: &mut Vec<Stmt>) {
        let (some, value) = dst;
        let span = e.span();
        if let Some((target, x)) = super::try_from::try_from_ok(e) {
            self.try_from_into(target, x, dst, out);
            return;
        }
        match strip_parens(e) {
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if crate::names::is_option_variant(&p.path, "Some")) =>
            {
                if c.args.len() != 1 {
                    self.err(span, "`Some` holds one value: `Some(x)`");
                    return;
                }
                let Some(x) = self.expr(&c.args[0], Position::Top) else {
                    return;
                };
                self.unify(self.k.locals[value].ty, x.ty, x.span);
                out.push(assign(value, x));
                out.push(assign(some, bool_lit(true, span)));
            }
            syn::Expr::Path(p) if crate::names::is_option_variant(&p.path, "None") => {
                out.push(assign(some, bool_lit(false, span)));
            }
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = unraw(p.path.get_ident().expect("checked above"));
                let Some(Binding::Option(s2, v2)) = self.lookup(&name) else {
                    self.not_an_option(span);
                    return;
                };
                self.unify(self.k.locals[value].ty, self.k.locals[v2].ty, span);
                out.push(assign(some, self.local(s2, span)));
                let copy = assign(value, self.local(v2, span));
                out.push(Stmt::If(self.local(s2, span), block(vec![copy]), None));
            }
            syn::Expr::MethodCall(m) if CHECKED.iter().any(|(n, _)| m.method == n) => {
                self.checked_into(m, dst, out);
            }
            syn::Expr::MethodCall(m)
                if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() =>
            {
                self.option_into(&m.receiver, dst, out);
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                let inner = self.option_block(&b.block, dst);
                out.push(Stmt::Block(inner));
            }
            syn::Expr::If(i) => {
                let Some((_, other)) = &i.else_branch else {
                    self.err(span, "an `if` that makes an `Option` needs an `else`");
                    return;
                };
                let Some(cond) = self.expr(&i.cond, Position::Operand) else {
                    return;
                };
                self.unify(cond.ty, Ty::Prim(Prim::Bool), cond.span);
                let then = self.option_block(&i.then_branch, dst);
                let mut els = Vec::new();
                self.option_into(other, dst, &mut els);
                out.push(Stmt::If(cond, then, Some(block(els))));
            }
            // After a panic in an `Option`'s place (`else { panic!(..) }`): nothing to set.
            syn::Expr::Call(c) if super::tables::call_name(c).as_deref() == Some("__gpu_never") => {
            }
            syn::Expr::Call(c)
                if super::tables::call_name(c).as_deref() == Some("__gpu_reported") => {}
            syn::Expr::Call(_) => self.option_result_into(e, dst, out),
            _ => self.not_an_option(span),
        }
    }

    /// A block ending in an `Option`: its statements, then its tail into `dst`.
    fn option_block(&mut self, b: &syn::Block, dst: (VarId, VarId)) -> Block {
        self.scopes.push(Vec::new());
        let late = self.note_late_options(&b.stmts);
        let mut stmts = Vec::new();
        match b.stmts.split_last() {
            Some((syn::Stmt::Expr(tail, None), init)) => {
                for s in init {
                    self.stmt(s, &mut stmts);
                }
                self.option_into(tail, dst, &mut stmts);
            }
            _ => self.err(
                b.span(),
                "this block must end in an `Option` (`Some(x)` or `None`)",
            ),
        }
        self.late_options.truncate(late);
        self.scopes.pop();
        block(stmts)
    }

    /// `a.checked_add(b)` (and `_sub`, `_mul`, `_div`, `_rem`) into `dst`: each operand
    /// evaluated once, the flag whether the result fits (`gt_fits_add`), and the result
    /// computed only where it does (so it never faults).
    fn checked_into(&mut self, m: &syn::ExprMethodCall, dst: (VarId, VarId), out: &mut Vec<Stmt>) {
        let span = m.span();
        let name = m.method.to_string();
        let op = CHECKED.iter().find(|(n, _)| *n == name).map(|(_, op)| *op);
        let (Some(op), Some(b), 1) = (op, m.args.first(), m.args.len()) else {
            self.err(span, format!("`{name}` takes one argument"));
            return;
        };
        let (Some(a), Some(b)) = (
            self.expr(&m.receiver, Position::Operand),
            self.expr(b, Position::Operand),
        ) else {
            return;
        };
        self.unify(a.ty, b.ty, b.span);
        let (some, value) = dst;
        self.unify(self.k.locals[value].ty, a.ty, span);
        let ty = a.ty;
        let ta = self.declare_hidden("lhs", ty, a.span);
        let tb = self.declare_hidden("rhs", ty, b.span);
        out.push(Stmt::Let(ta, Some(a)));
        out.push(Stmt::Let(tb, Some(b)));
        let fits = gpu_contract::language::checked_fits(&name).expect("a checked method");
        let test = Expr {
            kind: ExprKind::Math(fits, vec![self.local(ta, span), self.local(tb, span)]),
            ty: Ty::Prim(Prim::Bool),
            span,
        };
        out.push(assign(some, test));
        let result = Expr {
            kind: ExprKind::Binary(
                op,
                Box::new(self.local(ta, span)),
                Box::new(self.local(tb, span)),
            ),
            ty,
            span,
        };
        out.push(Stmt::If(
            self.local(some, span),
            block(vec![assign(value, result)]),
            None,
        ));
    }

    /// A `#[gpu_device]` function's `Option` result into `dst`: the call's pair (a tuple in
    /// C) into a hidden local, then its parts.
    fn option_result_into(&mut self, e: &syn::Expr, dst: (VarId, VarId), out: &mut Vec<Stmt>) {
        let span = e.span();
        let Some(call) = self.expr(e, Position::Operand) else {
            return;
        };
        if !matches!(call.kind, ExprKind::DeviceCall(..)) {
            self.not_an_option(span);
            return;
        }
        let holder_ty = self.types.fresh_opaque();
        let holder = self.declare_hidden("option", holder_ty, span);
        out.push(Stmt::Let(holder, Some(call)));
        let part = |k: usize, ty: Ty| super::tuple::tuple_part(holder, holder_ty, k, ty, span);
        let (some, value) = dst;
        let vty = self.k.locals[value].ty;
        out.push(assign(some, part(0, Ty::Prim(Prim::Bool))));
        out.push(assign(value, part(1, vty)));
    }

    /// An argument for a device function's `Option<T>` parameter, where `e` makes an
    /// `Option`: a local's flag and value as a pair, `Some(x)` as `(true, x)`, `None` as
    /// `gt_none_t{}` (the pair of whatever `T` the callee takes). Other forms need
    /// statements of their own, which an argument cannot have: bound to a local first, as
    /// the error says. (A device function's `Option` result is a pair already, passed as it
    /// is.)
    pub(super) fn option_arg(&mut self, e: &syn::Expr) -> Option<Expr> {
        let span = e.span();
        let ty = self.types.fresh_opaque();
        let kind = match strip_parens(e) {
            syn::Expr::Path(p) if crate::names::is_option_variant(&p.path, "None") => {
                ExprKind::NoneArg
            }
            syn::Expr::Path(p) => match p.path.get_ident().and_then(|i| self.lookup(&unraw(i))) {
                Some(Binding::Option(some, value)) => {
                    ExprKind::Tuple(vec![self.local(some, span), self.local(value, span)])
                }
                _ => {
                    self.not_an_option(span);
                    return None;
                }
            },
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if crate::names::is_option_variant(&p.path, "Some")) =>
            {
                if c.args.len() != 1 {
                    self.err(span, "`Some` holds one value: `Some(x)`");
                    return None;
                }
                let x = self.expr(&c.args[0], Position::Operand)?;
                ExprKind::Tuple(vec![bool_lit(true, span), x])
            }
            _ => {
                self.err(
                    span,
                    "an `Option` argument is a local, `Some(x)`, `None` or a device \
                     function's `Option`; bind this one to a local first: `let o = ..; f(o)`",
                );
                return None;
            }
        };
        Some(Expr { kind, ty, span })
    }

    /// `return e;` in a device function returning `Option<T>`: `e` into two locals, then
    /// the pair.
    pub(super) fn return_option(&mut self, e: &syn::Expr) -> Stmt {
        let span = e.span();
        let elem = self.sig.ret_tuple[1];
        let (some, value) = self.option_locals("result", elem, span);
        let mut stmts = vec![
            Stmt::Let(some, Some(bool_lit(false, span))),
            Stmt::Let(value, None),
        ];
        self.option_into(e, (some, value), &mut stmts);
        let ty = self.types.fresh_opaque();
        stmts.push(Stmt::ReturnValue(Expr {
            kind: ExprKind::Tuple(vec![self.local(some, span), self.local(value, span)]),
            ty,
            span,
        }));
        Stmt::Block(block(stmts))
    }

    /// `o.is_some()` / `o.is_none()` (`is_none`): the flag of an `Option` local, or the
    /// test of a checked operation; `None` when `m` is not such a call.
    pub(super) fn option_test(&mut self, m: &syn::ExprMethodCall) -> Option<Option<Expr>> {
        let none = match m.method.to_string().as_str() {
            "is_some" => false,
            "is_none" => true,
            _ => return None,
        };
        if !m.args.is_empty() {
            return None;
        }
        if !self.is_option_expr(&m.receiver) {
            return Some(self.not_option_receiver(m));
        }
        let span = m.span();
        let flag = match strip_parens(&m.receiver) {
            syn::Expr::Path(p) if crate::names::is_option_variant(&p.path, "None") => {
                bool_lit(false, span)
            }
            syn::Expr::Path(p) => {
                let name = unraw(p.path.get_ident()?);
                let Some(Binding::Option(some, _)) = self.lookup(&name) else {
                    return Some(None);
                };
                self.local(some, span)
            }
            e if super::try_from::try_from_ok(e).is_some() => {
                let (target, x) = super::try_from::try_from_ok(e)?;
                self.try_from_flag(target, x)?
            }
            syn::Expr::MethodCall(c)
                if CHECKED.iter().any(|(n, _)| c.method == n) && c.args.len() == 1 =>
            {
                let a = self.expr(&c.receiver, Position::Operand)?;
                let b = self.expr(&c.args[0], Position::Operand)?;
                self.unify(a.ty, b.ty, b.span);
                let fits = gpu_contract::language::checked_fits(&c.method.to_string())?;
                Expr {
                    kind: ExprKind::Math(fits, vec![a, b]),
                    ty: Ty::Prim(Prim::Bool),
                    span,
                }
            }
            other => {
                self.err(
                    other.span(),
                    format!(
                        "bind this `Option` to a local first (`let o = ..;`), then call \
                         `o.{}()`",
                        m.method
                    ),
                );
                return Some(None);
            }
        };
        Some(Some(if none {
            Expr {
                kind: ExprKind::Unary(UnOp::Not, Box::new(flag)),
                ty: Ty::Prim(Prim::Bool),
                span,
            }
        } else {
            flag
        }))
    }

    /// The desugaring's calls about `Option`s: `__gpu_some_value(o)`, and a `max()`/`min()`
    /// item, `__gpu_require_ord(x)` (the value; an error for a float, which Rust does not
    /// order totally); `None` for another name.
    pub(super) fn option_internal_call(
        &mut self,
        last: &str,
        c: &syn::ExprCall,
    ) -> Option<Option<Expr>> {
        let span = c.span();
        match last {
            "__gpu_some_value" => Some(self.some_value(c)),
            "__gpu_require_ord" if c.args.len() == 1 => Some(self.ord_item(c, span)),
            _ => None,
        }
    }

    /// `__gpu_require_ord(x)`: `x`, which rustc checks is `Ord` on the simulator's side.
    fn ord_item(&mut self, c: &syn::ExprCall, span: proc_macro2::Span) -> Option<Expr> {
        let x = self.expr(&c.args[0], Position::Operand)?;
        // Integers and `bool` are `Ord`; a type still open is rustc's to check.
        let ordered = match self.types.shallow(x.ty) {
            Ty::Prim(p) => p.is_int() || p == Prim::Bool,
            Ty::Generic(g) => self.sig.generics[g].bound == gpu_contract::Bound::Int,
            Ty::Struct(_) => false,
            Ty::Var(_) => self.types.var_kind(x.ty) != Some(VarKind::Float),
        };
        if !ordered {
            self.err(
                span,
                "`max()` and `min()` need items Rust can order totally (`Ord`: integers, \
                 `T: Int`), which floats and other values are not: fold instead, \
                 `.fold(f32::NEG_INFINITY, f32::max)` (or `f32::INFINITY, f32::min`)",
            );
            return None;
        }
        Some(x)
    }

    /// `x.is_some()` of a value that is not an `Option` (also from a `Some(..)` or `None`
    /// pattern, which desugaring makes this test): the error saying what `x` is.
    fn not_option_receiver(&mut self, m: &syn::ExprMethodCall) -> Option<Expr> {
        let recv = self.receiver_expr(&m.receiver)?;
        if let ExprKind::Local(v) = recv.kind {
            if self.poisoned.contains(&v) {
                return None;
            }
        }
        if self.types.opaque_kind(recv.ty) == Some(VarKind::Any) {
            return self.unseen_type(m, &m.method.to_string());
        }
        let d = self.describe(recv.ty);
        self.err(
            m.receiver.span(),
            format!(
                "`Some(..)` and `None` patterns, and `.{}()`, apply to an `Option`; this is {d}",
                m.method
            ),
        );
        None
    }

    /// `__gpu_some_value(o)`: the value of an `Option` local desugaring has tested, or of
    /// `a.checked_add(b)` (then `a + b`, which the test guards, so it never faults).
    pub(super) fn some_value(&mut self, c: &syn::ExprCall) -> Option<Expr> {
        let span = c.span();
        if let Some((target, x)) = c.args.first().and_then(super::try_from::try_from_ok) {
            return self.try_from_value(target, x);
        }
        match c.args.first().map(strip_parens) {
            Some(syn::Expr::Path(p)) => {
                if let Some(Binding::Option(_, v)) =
                    p.path.get_ident().and_then(|i| self.lookup(&unraw(i)))
                {
                    return Some(self.local(v, span));
                }
                // Not an `Option` local: its test (`x.is_some()`, which desugaring puts
                // first) has said why.
                if !self.diags.is_empty() {
                    return None;
                }
            }
            Some(syn::Expr::MethodCall(m)) if m.args.len() == 1 => {
                let name = m.method.to_string();
                if let Some(&(_, op)) = CHECKED.iter().find(|(n, _)| *n == name) {
                    let a = self.expr(&m.receiver, Position::Operand)?;
                    let b = self.expr(&m.args[0], Position::Operand)?;
                    self.unify(a.ty, b.ty, b.span);
                    let ty = a.ty;
                    return Some(Expr {
                        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
                        ty,
                        span,
                    });
                }
            }
            _ => {}
        }
        self.err(
            span,
            "this `Option` is read in a pattern: bind it to a local first (`let o = ..;`)",
        );
        None
    }

    /// The error for an `Option` local used as a plain value.
    pub(super) fn option_as_value(&mut self, span: proc_macro2::Span, name: &str) {
        self.err(
            span,
            format!(
                "`{name}` is an `Option`, which kernels keep as a flag and a value: {READ_ADVICE}"
            ),
        );
    }

    fn not_an_option(&mut self, span: proc_macro2::Span) {
        self.err(
            span,
            "an `Option` in kernels is `Some(x)`, `None`, an `Option` local, `a.checked_add(b)` \
             (and `_sub`, `_mul`, `_div`, `_rem`), an `if` or `match` of these, or a \
             `#[gpu_device]` function's `Option` result named with its type (`let o: \
             Option<f32> = f(x);`)",
        );
    }

    fn local(&self, v: VarId, span: proc_macro2::Span) -> Expr {
        Expr {
            kind: ExprKind::Local(v),
            ty: self.k.locals[v].ty,
            span,
        }
    }
}

fn assign(v: VarId, e: Expr) -> Stmt {
    Stmt::Assign(Place::Local(v), None, e)
}

fn bool_lit(b: bool, span: proc_macro2::Span) -> Expr {
    Expr {
        kind: ExprKind::Lit(Lit::Bool(b)),
        ty: Ty::Prim(Prim::Bool),
        span,
    }
}

fn block(stmts: Vec<Stmt>) -> Block {
    Block { stmts, tail: None }
}

/// Finds an assignment `name = e` whose `e` makes an `Option`.
struct OptionAssignments<'a, 'b> {
    name: &'a str,
    lowerer: &'a Lowerer<'b>,
    found: bool,
}

impl<'ast> syn::visit::Visit<'ast> for OptionAssignments<'_, '_> {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let syn::Expr::Path(p) = strip_parens(&a.left) {
            if p.path.get_ident().is_some_and(|i| unraw(i) == self.name)
                && self.lowerer.is_option_expr(&a.right)
            {
                self.found = true;
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }
}
