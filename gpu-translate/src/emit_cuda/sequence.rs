//! Rust's evaluation order in C.
//!
//! Rust evaluates operands left to right: `f(s, i) - f(s, i)` draws the left number first,
//! and `h[g()] += v()` (on a primitive) evaluates `v()` before the place. C leaves the
//! order of an operator's operands and of a call's arguments open, and the emitted
//! compound assignment (`auto& gt_r = place; gt_r = op(gt_r, v)`) evaluates the place
//! first. Where the order can be seen, because one operand has an effect (a draw, an
//! atomic, a device call, a barrier) and another has an effect or reads memory, the
//! operands that Rust evaluates first are written to temporaries before the statement
//! (`const auto gt_q0 = ..;`), in Rust's order, and the statement reads the temporaries.
//! Where nothing can be seen, nothing changes: the C of an ordinary statement is the same.
//!
//! An operand that is evaluated only on a condition (an `if` expression's branch, the
//! right side of `&&` and `||`) is not moved out of it: when it needs an order of its own,
//! the whole conditional becomes statements (`if (c) { ..; gt_q = ..; } else { .. }`).

use super::Emitter;
use crate::ir::{BinOp, Block, Expr, ExprKind, FieldStep, Intrinsic, Place, RTy, Stmt};

/// Whether an intrinsic orders memory: a barrier or a fence. A shuffle or a vote reads
/// and writes no memory, so its order against a read cannot be seen.
fn orders_memory(i: Intrinsic) -> bool {
    matches!(
        i,
        Intrinsic::SyncThreads
            | Intrinsic::SyncThreadsCount
            | Intrinsic::SyncThreadsAnd
            | Intrinsic::SyncThreadsOr
            | Intrinsic::ThreadFence
            | Intrinsic::ThreadFenceBlock
            | Intrinsic::ThreadFenceSystem
            | Intrinsic::SyncWarp
            | Intrinsic::SyncGrid
    )
}

/// Whether evaluating `e` writes memory or orders it: a draw, an atomic, a device call, a
/// barrier or fence.
fn has_effects(e: &Expr<RTy>) -> bool {
    reaches(e, &|k| {
        matches!(
            k,
            ExprKind::Atomic(..)
                | ExprKind::RandomDraw(..)
                | ExprKind::DeviceCall(..)
                | ExprKind::ClosureCall(..)
        ) || matches!(k, ExprKind::Intrinsic(i, _) if orders_memory(*i))
    })
}

/// Whether evaluating `e` reads memory that an effect could write: an array element, a
/// state, whatever a device function reads (a barrier counts: reads move across none).
fn reads_memory(e: &Expr<RTy>) -> bool {
    reaches(e, &|k| {
        matches!(
            k,
            ExprKind::Index(..)
                | ExprKind::Receiver(..)
                | ExprKind::Atomic(..)
                | ExprKind::Load4(..)
                | ExprKind::RandomDraw(..)
                | ExprKind::DeviceCall(..)
                | ExprKind::ClosureCall(..)
        ) || matches!(k, ExprKind::Intrinsic(i, _) if orders_memory(*i))
    })
}

/// Whether `e` or a part of it is of a kind `hit` picks; a block with statements counts.
fn reaches(e: &Expr<RTy>, hit: &dyn Fn(&ExprKind<RTy>) -> bool) -> bool {
    let block =
        |b: &Block<RTy>| !b.stmts.is_empty() || b.tail.as_ref().is_some_and(|t| reaches(t, hit));
    if hit(&e.kind) {
        return true;
    }
    match &e.kind {
        ExprKind::If(c, t, f) => reaches(c, hit) || block(t) || block(f),
        ExprKind::Block(b) => block(b),
        ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => reaches(a, hit) || reaches(b, hit),
        _ => operands(e).is_some_and(|ops| ops.iter().any(|o| reaches(o, hit))),
    }
}

/// Whether the order of `first` and then `second` can be seen: one has an effect and the
/// other an effect or a read of memory.
fn interact(first: &Expr<RTy>, second: &Expr<RTy>) -> bool {
    (has_effects(first) && (has_effects(second) || reads_memory(second)))
        || (reads_memory(first) && has_effects(second))
}

/// The operands of `e` that C evaluates in an order it does not fix, in Rust's order; `None`
/// for a conditional (`if`, `&&`, `||`), whose parts C evaluates in order.
fn operands(e: &Expr<RTy>) -> Option<Vec<&Expr<RTy>>> {
    Some(match &e.kind {
        ExprKind::If(..) | ExprKind::Block(_) => return None,
        ExprKind::Binary(BinOp::And | BinOp::Or, ..) => return None,
        ExprKind::Binary(_, a, b) => vec![&**a, &**b],
        ExprKind::Unary(_, a)
        | ExprKind::Convert(_, a)
        | ExprKind::TuplePart(a, _)
        | ExprKind::MmaCoord(_, _, a)
        | ExprKind::Field(a, _) => vec![&**a],
        ExprKind::FieldIndex(a, _, i) => vec![&**a, &i.index.expr],
        ExprKind::Index(_, idx) => idx.iter().map(|i| &i.expr).collect(),
        ExprKind::Load4(_, i) | ExprKind::RandomDraw(_, _, i) => vec![&i.expr],
        ExprKind::Atomic(_, _, idx, args) => {
            idx.iter().map(|i| &i.expr).chain(args.iter()).collect()
        }
        ExprKind::Receiver(p, _) | ExprKind::Borrow(p, _) => place_operands(p),
        ExprKind::DeviceCall(_, _, args)
        | ExprKind::ClosureCall(_, args)
        | ExprKind::Math(_, args)
        | ExprKind::Intrinsic(_, args)
        | ExprKind::Tuple(args)
        | ExprKind::StructLit(_, args)
        | ExprKind::FieldArray(args) => args.iter().collect(),
        ExprKind::SubSlice(_, a, b, _) => vec![&**a, &**b],
        ExprKind::Lit(_)
        | ExprKind::Local(_)
        | ExprKind::Const(_)
        | ExprKind::WholeArray(_)
        | ExprKind::Len(_)
        | ExprKind::Extent(..)
        | ExprKind::NoneArg
        | ExprKind::Zero
        // A closure's body runs inside the call it is passed to, not where it is written.
        | ExprKind::Lambda(_)
        | ExprKind::Geometry(..) => Vec::new(),
    })
}

/// The last operand of a group that must come after an earlier one it interacts with:
/// every operand before it is evaluated into a temporary first.
fn last_ordered(group: &[&Expr<RTy>]) -> Option<usize> {
    (1..group.len())
        .rev()
        .find(|&j| (0..j).any(|i| interact(group[i], group[j])))
}

/// Whether writing `e` as one C expression could evaluate its parts in another order than
/// Rust's.
pub(super) fn needs_order(e: &Expr<RTy>) -> bool {
    let block = |b: &Block<RTy>| b.tail.as_ref().is_some_and(needs_order);
    match &e.kind {
        ExprKind::If(c, t, f) => needs_order(c) || block(t) || block(f),
        ExprKind::Block(b) => block(b),
        ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => needs_order(a) || needs_order(b),
        _ => {
            let ops = operands(e).unwrap_or_default();
            last_ordered(&ops).is_some() || ops.iter().any(|o| needs_order(o))
        }
    }
}

impl Emitter<'_> {
    /// Before `s` is written: the temporaries that give its operands Rust's order.
    pub(super) fn order_statement(&mut self, s: &Stmt<RTy>) {
        match s {
            // A value written as statements (`if` with statements in a branch) is ordered
            // branch by branch, by `assign_value`.
            Stmt::Let(_, Some(e)) | Stmt::ReturnValue(e) if super::needs_statements(e) => {}
            Stmt::Let(_, Some(e)) | Stmt::Eval(e) | Stmt::ReturnValue(e) => self.order(e),
            Stmt::DeclareArray(_, Some(e)) => self.order(e),
            Stmt::If(c, ..) => self.order(c),
            Stmt::Assign(place, op, value) => {
                // Rust evaluates the value, then the place (for a compound assignment,
                // then reads the place). C++17 does the same for `place = value`, but a
                // place part made a temporary here would come first, and the emitted
                // compound assignment binds the place before it evaluates the value:
                // where the order can be seen, the value is a temporary first.
                let parts = place_operands(place);
                let seen = parts.iter().any(|p| interact(value, p));
                let first = seen || (op.is_some() && has_effects(value));
                if super::needs_statements(value) && op.is_none() {
                    if first {
                        self.hoist_statements(value);
                    }
                } else {
                    self.order(value);
                    if first {
                        self.hoist(value);
                    }
                }
                self.order_group(&parts);
            }
            Stmt::Store4(_, i, values) => {
                let group: Vec<&Expr<RTy>> = std::iter::once(&i.expr).chain(values).collect();
                self.order_group(&group);
            }
            Stmt::Tile(op) => {
                if let crate::ir::TileOp::Copy { row, col, .. } = &**op {
                    self.order_group(&[row, col]);
                }
            }
            Stmt::Panic(p) => {
                let group: Vec<&Expr<RTy>> = p.values.iter().collect();
                self.order_group(&group);
            }
            Stmt::Print(_, pieces) => {
                let group: Vec<&Expr<RTy>> = pieces
                    .iter()
                    .filter_map(|p| match p {
                        crate::ir::PrintPiece::Value(e, _) => Some(e),
                        crate::ir::PrintPiece::Text(_) => None,
                    })
                    .collect();
                self.order_group(&group);
            }
            Stmt::For(f) => {
                let group: Vec<&Expr<RTy>> = [Some(&f.start), Some(&f.end), f.step.as_ref()]
                    .into_iter()
                    .flatten()
                    .collect();
                self.order_group(&group);
            }
            _ => {}
        }
    }

    /// The temporaries that `e`'s parts need, in Rust's order (`e` itself is not one).
    pub(super) fn order(&mut self, e: &Expr<RTy>) {
        match &e.kind {
            ExprKind::If(c, t, f) => {
                self.order(c);
                let branch = |b: &Block<RTy>| b.tail.as_ref().is_some_and(needs_order);
                if branch(t) || branch(f) {
                    self.hoist_conditional(e);
                }
            }
            ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => {
                self.order(a);
                if needs_order(b) {
                    self.hoist_conditional(e);
                }
            }
            _ => {
                let ops = operands(e).unwrap_or_default();
                self.order_group(&ops);
            }
        }
    }

    /// Order a group of operands C evaluates in any order: those before the last one that
    /// must follow another become temporaries.
    fn order_group(&mut self, group: &[&Expr<RTy>]) {
        let split = last_ordered(group).unwrap_or(0);
        for (k, e) in group.iter().enumerate() {
            self.order(e);
            if k < split && (has_effects(e) || reads_memory(e)) {
                self.hoist(e);
            }
        }
    }

    /// `const auto gt_qN = e;` now, and `gt_qN` wherever `e` is written until the
    /// statement is done.
    fn hoist(&mut self, e: &Expr<RTy>) {
        if self.hoisted.iter().any(|(p, _)| *p == key(e)) {
            return;
        }
        if let ExprKind::FieldArray(elements) = &e.kind {
            // A brace list, not a value C can name: its elements, in order.
            for x in elements {
                if has_effects(x) || reads_memory(x) {
                    self.hoist(x);
                }
            }
            return;
        }
        let v = self.expr(e);
        let name = self.temporary();
        if let ExprKind::Borrow(..) = &e.kind {
            // A borrowed place, named now (its indices evaluated now) as Rust does.
            self.line(format!("auto&& {name} = {v};"));
        } else if let ExprKind::Receiver(_, method) = &e.kind {
            // A method's receiver, evaluated first as Rust does: for `&mut self` the place
            // (its indices evaluated and checked now, the method changes it later), for
            // `self` and `&self` its value now (`gt_recv_of` picks by the method's flag).
            self.line(format!(
                "auto&& {name} = gt_recv_of<gt_byref_{method}>::get({v});"
            ));
        } else {
            self.line(format!("const {} {name} = {v};", self.c_type(e.ty)));
        }
        self.hoisted.push((key(e), name));
    }

    /// A conditional whose parts need an order of their own, as statements:
    /// `T gt_qN; if (c) { ..; gt_qN = t; } else { ..; gt_qN = f; }`, or for `a && b`,
    /// `bool gt_qN = a; if (gt_qN) { ..; gt_qN = b; }`.
    fn hoist_conditional(&mut self, e: &Expr<RTy>) {
        let ty = self.c_type(e.ty);
        if e.ty == RTy::Opaque {
            // Only `auto` names the type, and `auto` needs a value: left as it is.
            return;
        }
        let name = self.temporary();
        match &e.kind {
            ExprKind::If(c, t, f) => {
                self.line(format!("{ty} {name};"));
                let c = self.condition(c);
                self.line(format!("if ({c}) {{"));
                self.ordered_branch(&name, t);
                self.line("} else {");
                self.ordered_branch(&name, f);
                self.line("}");
            }
            ExprKind::Binary(op, a, b) => {
                let a = self.expr(a);
                self.line(format!("bool {name} = {a};"));
                let test = if *op == BinOp::And {
                    name.clone()
                } else {
                    format!("!{name}")
                };
                self.line(format!("if ({test}) {{"));
                self.depth += 1;
                self.order(b);
                let b = self.expr(b);
                self.line(format!("{name} = {b};"));
                self.depth -= 1;
                self.line("}");
            }
            _ => unreachable!("only conditionals are written as statements"),
        }
        self.hoisted.push((key(e), name));
    }

    /// A value written as statements (an `if` with statements in a branch) into a
    /// temporary now: `T gt_qN;` and the branches assigning it.
    fn hoist_statements(&mut self, e: &Expr<RTy>) {
        if e.ty == RTy::Opaque {
            // Only `auto` names the type, and `auto` needs a value: left as it is.
            return;
        }
        let name = self.temporary();
        let ty = self.c_type(e.ty);
        self.line(format!("{ty} {name};"));
        self.assign_value(&name, e);
        self.hoisted.push((key(e), name));
    }

    fn ordered_branch(&mut self, name: &str, b: &Block<RTy>) {
        self.depth += 1;
        self.block_contents(b);
        if let Some(t) = &b.tail {
            self.order(t);
            let v = self.expr(t);
            self.line(format!("{name} = {v};"));
        }
        self.depth -= 1;
    }

    pub(super) fn temporary(&mut self) -> String {
        self.temporaries += 1;
        format!("gt_q{}", self.temporaries - 1)
    }

    /// The temporary holding `e`, if one does.
    pub(super) fn hoisted_value(&self, e: &Expr<RTy>) -> Option<String> {
        self.hoisted
            .iter()
            .find(|(p, _)| *p == key(e))
            .map(|(_, n)| n.clone())
    }
}

/// An expression's identity while one statement is written.
fn key(e: &Expr<RTy>) -> usize {
    e as *const Expr<RTy> as usize
}

/// A place's index expressions in Rust's order: the element's, then the array fields'.
fn place_operands(p: &Place<RTy>) -> Vec<&Expr<RTy>> {
    let (idx, path) = match p {
        Place::Local(_) => (&[][..], &[][..]),
        Place::LocalField(_, path, _) => (&[][..], &path[..]),
        Place::Index(_, idx) => (&idx[..], &[][..]),
        Place::IndexField(_, idx, path, _) => (&idx[..], &path[..]),
    };
    idx.iter()
        .map(|i| &i.expr)
        .chain(path.iter().filter_map(|s| match s {
            FieldStep::Index(i) => Some(&i.index.expr),
            FieldStep::Field(_) => None,
        }))
        .collect()
}
