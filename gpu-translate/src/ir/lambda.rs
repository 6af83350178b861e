//! Closures passed to device functions ([`ExprKind::Lambda`]): the node, its number in
//! the body, and what it captures.

use super::body::{Block, Expr, ExprKind, Place, Stmt};
use super::{ArrayId, Target, VarId};

/// The attribute the desugarer puts on each closure it leaves in the body, with its number.
pub const LAMBDA_ATTR: &str = "__gpu_lambda";

/// The number the desugarer gave closure `c` (its [`LAMBDA_ATTR`] attribute).
pub fn lambda_index(c: &syn::ExprClosure) -> Option<usize> {
    c.attrs.iter().find_map(|a| {
        if !a.path().is_ident(LAMBDA_ATTR) {
            return None;
        }
        a.parse_args::<syn::LitInt>().ok()?.base10_parse().ok()
    })
}

/// A closure handed to a device function ([`ExprKind::Lambda`]).
#[derive(Clone, Debug)]
pub struct Lambda<T> {
    /// Its number among the body's closures (the desugarer's), by which the simulator's
    /// Rust finds it to write its parameters' and result's types.
    pub index: usize,
    /// Its parameters, locals of its own.
    pub params: Vec<VarId>,
    /// Its body: a value block, or a statement block for a closure returning `()`.
    pub body: Block<T>,
    /// Its result's type; `None` for `()`.
    pub ret: Option<T>,
    /// Whether it is `move`: the captured locals it assigns are its own copies.
    pub by_copy: bool,
}

/// The closures passed to device functions anywhere in `b`, nested ones included, in the
/// order they are written.
pub fn lambdas<T>(b: &Block<T>) -> Vec<&Lambda<T>> {
    fn block<'a, T>(b: &'a Block<T>, out: &mut Vec<&'a Lambda<T>>) {
        b.stmts.iter().for_each(|s| stmt(s, out));
        if let Some(t) = &b.tail {
            expr(t, out);
        }
    }
    fn stmt<'a, T>(s: &'a Stmt<T>, out: &mut Vec<&'a Lambda<T>>) {
        s.own_exprs(&mut |e| expr(e, out));
        match s {
            Stmt::If(_, t, e) => {
                block(t, out);
                if let Some(e) = e {
                    block(e, out);
                }
            }
            Stmt::While(_, b) | Stmt::Loop(b) | Stmt::Block(b) => block(b, out),
            Stmt::For(l) => block(&l.body, out),
            Stmt::Labelled(_, s) => stmt(s, out),
            _ => {}
        }
    }
    fn expr<'a, T>(e: &'a Expr<T>, out: &mut Vec<&'a Lambda<T>>) {
        match &e.kind {
            ExprKind::Lambda(l) => {
                out.push(l);
                block(&l.body, out);
            }
            ExprKind::If(_, t, f) => {
                block(t, out);
                block(f, out);
            }
            ExprKind::Block(b) => block(b, out),
            _ => {}
        }
        e.children(&mut |c| expr(c, out));
    }
    let mut out = Vec::new();
    block(b, &mut out);
    out
}

impl<T> Lambda<T> {
    /// The locals outside it that it may change when called: those it assigns (whole or a
    /// field), or lends as `&mut`, and does not declare.
    pub fn assigned_captures(&self) -> Vec<VarId> {
        self.captures().1
    }

    /// The locals outside it that it names (read or written), and those of them it may
    /// change, each sorted.
    pub fn captures(&self) -> (Vec<VarId>, Vec<VarId>) {
        let w = self.walk();
        let outside = |mut v: Vec<VarId>| {
            v.retain(|x| !w.declared.contains(x));
            v.sort_unstable();
            v.dedup();
            v
        };
        (outside(w.named.clone()), outside(w.assigned.clone()))
    }

    /// The arrays declared in a body (not parameters) that it names and does not declare:
    /// the caller's.
    pub fn named_arrays(&self) -> Vec<ArrayId> {
        let w = self.walk();
        let mut a = w.arrays;
        a.retain(|x| !w.declared_arrays.contains(x));
        a.sort_unstable();
        a.dedup();
        a
    }

    fn walk(&self) -> Walk {
        let mut w = Walk {
            declared: self.params.clone(),
            ..Walk::default()
        };
        w.block(&self.body);
        w
    }
}

/// What a closure's body names ([`Lambda::captures`]).
#[derive(Default)]
struct Walk {
    declared: Vec<VarId>,
    named: Vec<VarId>,
    assigned: Vec<VarId>,
    arrays: Vec<ArrayId>,
    declared_arrays: Vec<ArrayId>,
}
impl Walk {
    fn target(&mut self, t: Target) {
        if let Target::Array(a) = t {
            self.arrays.push(a);
        }
    }
    fn place<T>(&mut self, p: &Place<T>, written: bool) {
        if let Place::Index(t, _) | Place::IndexField(t, ..) = p {
            self.target(*t);
        }
        if let Place::Local(v) | Place::LocalField(v, ..) = p {
            self.named.push(*v);
            if written {
                self.assigned.push(*v);
            }
        }
        p.index_exprs(&mut |e| self.expr(e));
    }
    fn block<T>(&mut self, b: &Block<T>) {
        b.stmts.iter().for_each(|s| self.stmt(s));
        if let Some(t) = &b.tail {
            self.expr(t);
        }
    }
    fn stmt<T>(&mut self, s: &Stmt<T>) {
        match s {
            Stmt::Let(v, _) => self.declared.push(*v),
            Stmt::DeclareArray(a, _) => self.declared_arrays.push(*a),
            Stmt::Assign(p, ..) => self.place(p, true),
            Stmt::If(_, t, e) => {
                self.block(t);
                if let Some(e) = e {
                    self.block(e);
                }
            }
            Stmt::While(_, b) | Stmt::Loop(b) | Stmt::Block(b) => self.block(b),
            Stmt::For(l) => {
                self.declared.push(l.var);
                self.block(&l.body);
            }
            Stmt::Labelled(_, s) => self.stmt(s),
            _ => {}
        }
        if !matches!(s, Stmt::Assign(..)) {
            s.own_exprs(&mut |e| self.expr(e));
        } else if let Stmt::Assign(_, _, value) = s {
            self.expr(value);
        }
    }
    fn expr<T>(&mut self, e: &Expr<T>) {
        match &e.kind {
            ExprKind::Local(v) | ExprKind::ClosureCall(v, _) => self.named.push(*v),
            ExprKind::Index(t, _)
            | ExprKind::Len(t)
            | ExprKind::WholeArray(t)
            | ExprKind::Load4(t, _)
            | ExprKind::Atomic(_, t, ..) => self.target(*t),
            ExprKind::Borrow(p, m) => self.place(p, *m),
            ExprKind::Receiver(p, _) => self.place(p, true),
            ExprKind::If(_, t, f) => {
                self.block(t);
                self.block(f);
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Lambda(l) => {
                self.declared.extend(&l.params);
                self.block(&l.body);
            }
            _ => {}
        }
        e.children(&mut |c| self.expr(c));
    }
}
