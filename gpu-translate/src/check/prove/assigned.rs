//! Which locals a body assigns, and how: what the prover needs to know before it trusts
//! a bound of a variable.

use crate::ir::{BinOp, Block, Expr, ExprKind, Lit, Place, RTy, Stmt};

/// Clears `shrinking[v]` for every mutable local assigned anything but a division or a
/// right shift of itself by a constant (`v /= 2`, `v >>= 1`, `v = v / 2`).
pub(super) fn find_growth(b: &Block<RTy>, shrinking: &mut [bool]) {
    visit_stmts(b, &mut |s| {
        if let Stmt::Assign(Place::Local(v), op, value) = s {
            let by_const = |e: &Expr<RTy>| matches!(e.kind, ExprKind::Lit(Lit::Int(c)) if c >= 1);
            let shrinks = match (op, &value.kind) {
                (Some(BinOp::Div | BinOp::Shr), _) => by_const(value),
                (None, ExprKind::Binary(BinOp::Div | BinOp::Shr, l, r)) => {
                    matches!(l.kind, ExprKind::Local(w) if w == *v) && by_const(r)
                }
                _ => false,
            };
            if !shrinks {
                shrinking[*v] = false;
            }
        }
    });
}

/// Marks every local a block assigns.
pub(super) fn mark_assigned(b: &Block<RTy>, assigned: &mut [bool]) {
    visit_stmts(b, &mut |s| {
        if let Stmt::Assign(Place::Local(v), _, _) = s {
            assigned[*v] = true;
        }
    });
}

/// Calls `f` on every statement of `b`, nested ones included (blocks inside expressions
/// too: `let x = if c { .. } else { .. };`), and, as an assignment of its local, on every
/// `&mut k` lent to a device function anywhere in them.
fn visit_stmts(b: &Block<RTy>, f: &mut dyn FnMut(&Stmt<RTy>)) {
    for s in &b.stmts {
        visit_stmt(s, f);
    }
    if let Some(t) = &b.tail {
        visit_expr(t, f);
    }
}

fn visit_stmt(s: &Stmt<RTy>, f: &mut dyn FnMut(&Stmt<RTy>)) {
    f(s);
    s.own_exprs(&mut |e| visit_expr(e, f));
    match s {
        Stmt::If(_, t, e) => {
            visit_stmts(t, f);
            if let Some(e) = e {
                visit_stmts(e, f);
            }
        }
        Stmt::While(_, body) | Stmt::Loop(body) | Stmt::Block(body) => visit_stmts(body, f),
        Stmt::For(l) => visit_stmts(&l.body, f),
        Stmt::Labelled(_, inner) => match &**inner {
            Stmt::While(_, body) | Stmt::Loop(body) | Stmt::Block(body) => visit_stmts(body, f),
            Stmt::For(l) => visit_stmts(&l.body, f),
            _ => {}
        },
        _ => {}
    }
}

/// The statements inside blocks of an expression, and its `&mut k` loans, at any depth.
fn visit_expr(e: &Expr<RTy>, f: &mut dyn FnMut(&Stmt<RTy>)) {
    match &e.kind {
        ExprKind::If(c, t, el) => {
            visit_expr(c, f);
            visit_stmts(t, f);
            visit_stmts(el, f);
        }
        ExprKind::Block(b) => visit_stmts(b, f),
        // A closure's assignments happen during the call it is passed to.
        ExprKind::Lambda(l) => visit_stmts(&l.body, f),
        // `f(&mut k)`: the function may write `k` anything, as an assignment would.
        ExprKind::Borrow(p, true) => f(&Stmt::Assign((**p).clone(), None, e.clone())),
        ExprKind::Receiver(p, _) => p.index_exprs(&mut |i| visit_expr(i, f)),
        _ => e.children(&mut |c| visit_expr(c, f)),
    }
}
