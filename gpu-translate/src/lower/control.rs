//! Control flow: `if`, `while`, `loop`, `for` over a range (with `#[unroll]`), `break`,
//! `continue` and `return`.

use crate::names::unraw;
use syn::spanned::Spanned;

use super::tables::strip_parens;
use super::{Block, Lowerer, Position, Stmt};
use crate::ir::{ForLoop, Label, Prim, Ty, VarKind};

/// `s`, wrapped in its label if it has one.
fn labelled(label: Option<Label>, s: Stmt) -> Stmt {
    match label {
        Some(l) => Stmt::Labelled(l, Box::new(s)),
        None => s,
    }
}

impl Lowerer<'_> {
    pub(super) fn if_stmt(&mut self, i: &syn::ExprIf) -> Option<Stmt> {
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

    pub(super) fn for_stmt(&mut self, f: &syn::ExprForLoop) -> Option<Stmt> {
        let unroll = self.unroll(&f.attrs);
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
                "kernel `for` loops iterate over a range (`a..b`, `a..=b`, with `.rev()` or \
                 `.step_by(s)`) or an array's elements (`a.iter()`, `&a`, with `.enumerate()`, \
                 `.zip(..)`, `.map(..)`, ..)",
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
        let label = self.enter_loop(f.label.as_ref());
        let body = self.unit_block(&f.body);
        self.leave_loop();
        self.scopes.pop();
        Some(labelled(
            label,
            Stmt::For(Box::new(ForLoop {
                var,
                end_c_name,
                step_c_name,
                start,
                end,
                step,
                body,
                unroll,
            })),
        ))
    }

    /// Enters a loop's body, with its label if it has one (a new C name: C labels have
    /// function scope, Rust's may repeat).
    fn enter_loop(&mut self, label: Option<&syn::Label>) -> Option<Label> {
        self.loop_depth += 1;
        let label = label.map(|l| {
            let rust = l.name.ident.to_string();
            let c = self
                .names
                .fresh(&format!("gt_label_{}", unraw(&l.name.ident)));
            Label { rust, c }
        });
        self.labels.push(label.clone());
        label
    }

    fn leave_loop(&mut self) {
        self.loop_depth -= 1;
        self.labels.pop();
    }

    /// The loop a `break 'l` or `continue 'l` names: reported if none encloses it.
    fn loop_label(&mut self, l: &syn::Lifetime) -> Option<Label> {
        let name = l.ident.to_string();
        let found = self
            .labels
            .iter()
            .rev()
            .flatten()
            .find(|x| x.rust == name)
            .cloned();
        if found.is_none() {
            self.err(
                l.span(),
                format!("no loop labelled `{l}` encloses this (kernels label loops, not blocks)"),
            );
        }
        found
    }

    /// A `while` loop.
    pub(super) fn while_stmt(&mut self, w: &syn::ExprWhile) -> Option<Stmt> {
        self.no_unroll(&w.attrs);
        if let syn::Expr::Let(l) = &*w.cond {
            self.err(
                l.span(),
                "`while let` is not supported in kernels; use `while` with a condition",
            );
            return None;
        }
        let cond = self.bool_expr(&w.cond);
        let label = self.enter_loop(w.label.as_ref());
        let body = self.unit_block(&w.body);
        self.leave_loop();
        Some(labelled(label, Stmt::While(cond?, body)))
    }

    /// A `loop`.
    pub(super) fn loop_stmt(&mut self, l: &syn::ExprLoop) -> Option<Stmt> {
        self.no_unroll(&l.attrs);
        let label = self.enter_loop(l.label.as_ref());
        let body = self.unit_block(&l.body);
        self.leave_loop();
        Some(labelled(label, Stmt::Loop(body)))
    }

    /// A `break`, which must be in a loop.
    pub(super) fn break_stmt(&mut self, b: &syn::ExprBreak) -> Option<Stmt> {
        if let Some(v) = &b.expr {
            // `let x = loop { .. break v; }` is desugared before this; a value here is
            // one a `while` or `for` cannot give.
            self.err(
                v.span(),
                "only a `loop` gives a value with `break`; `while` and `for` loops have none",
            );
        }
        if self.loop_depth == 0 {
            self.err(b.span(), "`break` outside of a loop");
            return None;
        }
        match &b.label {
            Some(l) => self.loop_label(l).map(|l| Stmt::Break(Some(l))),
            None => Some(Stmt::Break(None)),
        }
    }

    /// A `continue`, which must be in a loop.
    pub(super) fn continue_stmt(&mut self, c: &syn::ExprContinue) -> Option<Stmt> {
        if self.loop_depth == 0 {
            self.err(c.span(), "`continue` outside of a loop");
            return None;
        }
        match &c.label {
            Some(l) => self.loop_label(l).map(|l| Stmt::Continue(Some(l))),
            None => Some(Stmt::Continue(None)),
        }
    }

    /// A `return`, of a value, a tuple or nothing, as the function's signature says.
    pub(super) fn return_stmt(&mut self, r: &syn::ExprReturn) -> Option<Stmt> {
        if self.lambda_depth > 0 {
            self.err(
                r.span(),
                "`return` inside a closure passed to a device function is not supported: end \
                 the closure's body with its value (use `if`/`else` for an early result)",
            );
            return None;
        }
        if self.sig.ret_option {
            let Some(v) = &r.expr else {
                self.err(
                    r.span(),
                    "this device function returns an `Option`: `return None;`",
                );
                return None;
            };
            return Some(self.return_option(v));
        }
        if !self.sig.ret_tuple.is_empty() {
            return match &r.expr {
                Some(v) => self.return_tuple(v),
                None => {
                    self.err(
                        r.span(),
                        "this device function returns a tuple: `return (a, b);`",
                    );
                    None
                }
            };
        }
        match (&r.expr, self.sig.ret) {
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
        }
    }
}
