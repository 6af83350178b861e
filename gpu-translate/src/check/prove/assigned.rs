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
/// too: `let x = if c { .. } else { .. };`).
fn visit_stmts(b: &Block<RTy>, f: &mut dyn FnMut(&Stmt<RTy>)) {
    for s in &b.stmts {
        f(s);
        match s {
            Stmt::If(c, t, e) => {
                visit_expr(c, f);
                visit_stmts(t, f);
                if let Some(e) = e {
                    visit_stmts(e, f);
                }
            }
            Stmt::While(c, body) => {
                visit_expr(c, f);
                visit_stmts(body, f);
            }
            Stmt::Loop(body) | Stmt::Block(body) => visit_stmts(body, f),
            Stmt::Labelled(_, s) => visit_stmts(
                &Block {
                    stmts: vec![(**s).clone()],
                    tail: None,
                },
                f,
            ),
            Stmt::For(l) => {
                visit_expr(&l.start, f);
                visit_expr(&l.end, f);
                visit_stmts(&l.body, f);
            }
            Stmt::Let(_, Some(e))
            | Stmt::DeclareArray(_, Some(e))
            | Stmt::Eval(e)
            | Stmt::ReturnValue(e)
            | Stmt::Assign(_, _, e) => visit_expr(e, f),
            _ => {}
        }
    }
    if let Some(t) = &b.tail {
        visit_expr(t, f);
    }
}

/// The statements inside blocks of an expression.
fn visit_expr(e: &Expr<RTy>, f: &mut dyn FnMut(&Stmt<RTy>)) {
    match &e.kind {
        ExprKind::If(c, t, el) => {
            visit_expr(c, f);
            visit_stmts(t, f);
            visit_stmts(el, f);
        }
        ExprKind::Block(b) => visit_stmts(b, f),
        ExprKind::Unary(_, a) | ExprKind::Convert(_, a) | ExprKind::TuplePart(a, _) => {
            visit_expr(a, f)
        }
        ExprKind::Binary(_, a, b) => {
            visit_expr(a, f);
            visit_expr(b, f);
        }
        ExprKind::Intrinsic(_, args)
        | ExprKind::DeviceCall(_, _, args)
        | ExprKind::Math(_, args)
        | ExprKind::Tuple(args) => args.iter().for_each(|a| visit_expr(a, f)),
        ExprKind::Atomic(_, _, idx, args) => {
            idx.iter().for_each(|i| visit_expr(&i.expr, f));
            args.iter().for_each(|a| visit_expr(a, f));
        }
        ExprKind::Index(_, idx) => idx.iter().for_each(|i| visit_expr(&i.expr, f)),
        ExprKind::Load4(_, i) | ExprKind::RandomDraw(_, _, i) => visit_expr(&i.expr, f),
        ExprKind::SubSlice(_, a, b, _) => {
            visit_expr(a, f);
            visit_expr(b, f);
        }
        // `f(&mut k)`: the function may write `k` anything, as an assignment would.
        ExprKind::Borrow(p, true) => f(&Stmt::Assign((**p).clone(), None, e.clone())),
        _ => {}
    }
}
