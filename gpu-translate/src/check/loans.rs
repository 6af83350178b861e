//! Locals lent as `&mut` to a device function (`f(&mut k)`), read in the same statement.
//!
//! Rust evaluates a statement's operands left to right, so `k + bump(&mut k)` reads the
//! old `k`; C leaves the order of a call's arguments and of an operator's operands open,
//! and the bounds prover takes a condition's comparisons (`k < n && advance(&mut k)`) for
//! facts about `k` after it. Such a statement is refused with what to write instead: the
//! read bound to a local first. A closure passed to a device function lends the locals it
//! assigns, as `&mut` would, and reads the others it names (a `move` closure copies them as
//! the statement runs, so nothing else in it may change them).

use crate::diagnostics::Diagnostics;
use crate::ir::{Block, Expr, ExprKind, Kernel, Place, RTy, Stmt, VarId};

/// Report every statement of `k` that lends a local as `&mut` and reads it elsewhere.
pub(crate) fn check_loans(k: &Kernel<RTy>, diags: &mut Diagnostics) {
    block(k, &k.body, diags);
}

fn block(k: &Kernel<RTy>, b: &Block<RTy>, diags: &mut Diagnostics) {
    for s in &b.stmts {
        stmt(k, s, diags);
    }
    if let Some(t) = &b.tail {
        statement_exprs(k, &[t], None, diags);
        nested(k, t, diags);
    }
}

fn stmt(k: &Kernel<RTy>, s: &Stmt<RTy>, diags: &mut Diagnostics) {
    let mut own = Vec::new();
    s.own_exprs(&mut |e| own.push(e));
    // `k += bump(&mut k)` reads `k` as the place it writes.
    let written = match s {
        Stmt::Assign(Place::Local(v), Some(_), _) => Some(*v),
        _ => None,
    };
    statement_exprs(k, &own, written, diags);
    for e in &own {
        nested(k, e, diags);
    }
    match s {
        Stmt::If(_, t, e) => {
            block(k, t, diags);
            if let Some(e) = e {
                block(k, e, diags);
            }
        }
        Stmt::While(_, b) | Stmt::Loop(b) | Stmt::Block(b) => block(k, b, diags),
        Stmt::For(l) => block(k, &l.body, diags),
        Stmt::Labelled(_, inner) => stmt(k, inner, diags),
        _ => {}
    }
}

/// The statements inside an expression's value blocks, each checked on its own.
fn nested(k: &Kernel<RTy>, e: &Expr<RTy>, diags: &mut Diagnostics) {
    match &e.kind {
        ExprKind::If(c, t, f) => {
            nested(k, c, diags);
            block(k, t, diags);
            block(k, f, diags);
        }
        ExprKind::Block(b) => block(k, b, diags),
        ExprKind::Lambda(l) => block(k, &l.body, diags),
        _ => e.children(&mut |c| nested(k, c, diags)),
    }
}

/// One statement's expressions: an error for each local both lent as `&mut` and read.
fn statement_exprs(
    k: &Kernel<RTy>,
    exprs: &[&Expr<RTy>],
    written: Option<VarId>,
    diags: &mut Diagnostics,
) {
    let mut lent = Vec::new();
    let mut read: Vec<VarId> = written.into_iter().collect();
    for e in exprs {
        uses(e, &mut lent, &mut read);
    }
    for (v, span) in lent {
        let twice = read.contains(&v);
        if twice {
            let name = crate::names::user_name(&k.locals[v].rust_name);
            diags.error(
                span,
                format!(
                    "`{name}` is changed by this call (lent as `&mut`, or assigned by a closure \
                     passed to it) and read elsewhere in the same statement, whose order the \
                     GPU's C leaves open; read it into a local first (`let before = {name};`) \
                     and use that, or change it in a statement of its own"
                ),
            );
        }
    }
}

/// The locals `e` lends as `&mut` (with where) and the ones it reads, value blocks aside.
fn uses(e: &Expr<RTy>, lent: &mut Vec<(VarId, proc_macro2::Span)>, read: &mut Vec<VarId>) {
    match &e.kind {
        ExprKind::Borrow(p, true) => {
            if let Place::Local(v) = **p {
                if lent.iter().any(|(w, _)| *w == v) {
                    // Lent twice in one statement: rustc refuses it on the simulator.
                    read.push(v);
                }
                lent.push((v, e.span));
            }
        }
        ExprKind::Borrow(p, false) => {
            if let Place::Local(v) = **p {
                read.push(v);
            }
        }
        ExprKind::Local(v) => read.push(*v),
        // A closure handed to a device function lends what it assigns for the call (a
        // `move` one assigns copies of its own, made as the statement runs) and reads the
        // rest of what it names.
        ExprKind::Lambda(l) => {
            let (named, assigned) = l.captures();
            let lends = if l.by_copy { Vec::new() } else { assigned };
            for &v in &lends {
                if lent.iter().any(|(w, _)| *w == v) {
                    read.push(v);
                }
                lent.push((v, e.span));
            }
            read.extend(named.into_iter().filter(|v| !lends.contains(v)));
        }
        ExprKind::Receiver(p, _) => {
            if let Place::Local(v) | Place::LocalField(v, ..) = **p {
                read.push(v);
            }
            p.index_exprs(&mut |i| uses(i, lent, read));
        }
        ExprKind::If(..) | ExprKind::Block(_) => {
            // A value block's statements are checked as statements; its condition and
            // tail are operands of this one.
            if let ExprKind::If(c, t, f) = &e.kind {
                uses(c, lent, read);
                for b in [t, f] {
                    if let Some(x) = &b.tail {
                        uses(x, lent, read);
                    }
                }
            } else if let ExprKind::Block(b) = &e.kind {
                if let Some(x) = &b.tail {
                    uses(x, lent, read);
                }
            }
        }
        _ => e.children(&mut |c| uses(c, lent, read)),
    }
}
