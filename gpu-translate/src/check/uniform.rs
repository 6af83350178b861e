//! Which values every thread of a block shares, and where every thread arrives: the rule
//! that keeps the tensor cores' block-wide operations sound.
//!
//! `mma.sync` and `ldmatrix` are undefined unless every lane of the warp executes them
//! together, and `copy_tile` fills a tile only when every thread of the block takes its
//! share. So a tile operation ([`Stmt::Tile`]) may not sit under a branch or loop whose
//! condition may differ between threads, nor after (or in a loop around) a point where
//! some threads may have left: a `return`, a panic (a kernel's thread stops there), a
//! `break` or `continue` under such a condition.
//!
//! A value is uniform when it comes only from literals, constants, scalar parameters,
//! `block_idx()`, `block_dim()`, `grid_dim()`, array lengths and uniform locals, through
//! operators and math; a local is uniform when every value it is given is uniform and
//! given where every thread arrives. Memory reads, device calls, `thread_idx()` and the
//! warp functions are not uniform. The analysis is flow-insensitive over locals (a local
//! assigned a thread-dependent value anywhere is never uniform), which only refuses more.

use proc_macro2::Span;

use crate::diagnostics::Diagnostics;
use crate::ir::{
    Block, Expr, ExprKind, FieldStep, Geometry, Intrinsic, Kernel, Place, RTy, Stmt, TileOp,
};

/// Report every tile operation some thread of the block may not reach with the others.
pub(super) fn check_tile_uniformity(k: &Kernel<RTy>, diags: &mut Diagnostics) {
    if !has_tile_ops(&k.body) {
        return;
    }
    let mut u = Uniformity {
        varying: vec![false; k.locals.len()],
        changed: true,
    };
    let mut called_on = Vec::new();
    receivers(&k.body, &mut called_on);
    for v in called_on {
        u.varying[v] = true;
    }
    while u.changed {
        u.changed = false;
        u.assignments(&k.body, false);
    }
    let mut walk = Walk {
        u: &u,
        left: None,
        diags,
    };
    walk.block(&k.body, None);
}

struct Uniformity {
    /// Per local: whether threads may hold different values in it.
    varying: Vec<bool>,
    changed: bool,
}

impl Uniformity {
    fn mark(&mut self, v: usize) {
        if !self.varying[v] {
            self.varying[v] = true;
            self.changed = true;
        }
    }

    /// Mark the locals given a value that may differ between threads.
    fn assignments(&mut self, b: &Block<RTy>, divergent: bool) {
        for s in &b.stmts {
            self.stmt(s, divergent);
        }
        if let Some(t) = &b.tail {
            self.expr_effects(t, divergent);
        }
    }

    fn stmt(&mut self, s: &Stmt<RTy>, divergent: bool) {
        match s {
            Stmt::Let(v, init) => {
                if divergent || init.as_ref().is_some_and(|e| !self.uniform(e)) {
                    self.mark(*v);
                }
                if let Some(e) = init {
                    self.expr_effects(e, divergent);
                }
            }
            Stmt::Assign(place, _, value) => {
                // A field written at an index that may differ between threads
                // (`s.m[t] = 1`) leaves the struct varying, whatever the value.
                let varying_index = match place {
                    Place::LocalField(_, steps, _) => steps.iter().any(|s| match s {
                        FieldStep::Index(i) => !self.uniform(&i.index.expr),
                        FieldStep::Field(_) => false,
                    }),
                    _ => false,
                };
                if let Place::Local(v) | Place::LocalField(v, ..) = place {
                    if divergent || varying_index || !self.uniform(value) {
                        self.mark(*v);
                    }
                }
                self.expr_effects(value, divergent);
            }
            Stmt::If(c, t, e) => {
                let d = divergent || !self.uniform(c);
                self.expr_effects(c, divergent);
                self.assignments(t, d);
                if let Some(e) = e {
                    self.assignments(e, d);
                }
            }
            Stmt::While(c, b) => {
                let d = divergent || !self.uniform(c) || exits_divergently(b, self);
                self.assignments(b, d);
            }
            Stmt::Loop(b) => {
                let d = divergent || exits_divergently(b, self);
                self.assignments(b, d);
            }
            Stmt::For(f) => {
                let d = divergent
                    || !self.uniform(&f.start)
                    || !self.uniform(&f.end)
                    || f.step.as_ref().is_some_and(|s| !self.uniform(s))
                    || exits_divergently(&f.body, self);
                if d {
                    self.mark(f.var);
                }
                self.assignments(&f.body, d);
            }
            Stmt::Block(b) => self.assignments(b, divergent),
            Stmt::Labelled(_, inner) => self.stmt(inner, divergent),
            Stmt::Eval(e) | Stmt::ReturnValue(e) => self.expr_effects(e, divergent),
            _ => {}
        }
    }

    /// The assignments inside `e`'s value blocks.
    fn expr_effects(&mut self, e: &Expr<RTy>, divergent: bool) {
        match &e.kind {
            ExprKind::If(c, t, f) => {
                self.expr_effects(c, divergent);
                let d = divergent || !self.uniform(c);
                self.assignments(t, d);
                self.assignments(f, d);
            }
            ExprKind::Block(b) => self.assignments(b, divergent),
            // A closure handed to a device function may run on some threads only, any
            // number of times: what it assigns may differ between threads.
            ExprKind::Lambda(l) => self.assignments(&l.body, true),
            // A local a method is called on was marked before the fixpoint (`receivers`).
            _ => e.children(&mut |x| self.expr_effects(x, divergent)),
        }
    }

    /// Whether every thread computes the same value for `e`.
    fn uniform(&self, e: &Expr<RTy>) -> bool {
        let block =
            |b: &Block<RTy>| b.stmts.is_empty() && b.tail.as_ref().is_some_and(|t| self.uniform(t));
        match &e.kind {
            ExprKind::Lit(_) | ExprKind::Const(_) | ExprKind::Len(_) | ExprKind::Extent(..) => true,
            ExprKind::Local(v) => !self.varying[*v],
            ExprKind::Geometry(g, _) => matches!(
                g,
                Geometry::BlockIdx | Geometry::BlockDim | Geometry::GridDim | Geometry::GridSize
            ),
            ExprKind::Intrinsic(Intrinsic::WarpSize, _) => true,
            ExprKind::Unary(_, x) | ExprKind::Convert(_, x) | ExprKind::Field(x, _) => {
                self.uniform(x)
            }
            ExprKind::TuplePart(x, _) => self.uniform(x),
            ExprKind::Binary(_, a, b) => self.uniform(a) && self.uniform(b),
            ExprKind::Math(_, args) | ExprKind::StructLit(_, args) | ExprKind::FieldArray(args) => {
                args.iter().all(|a| self.uniform(a))
            }
            ExprKind::FieldIndex(x, _, i) => self.uniform(x) && self.uniform(&i.index.expr),
            ExprKind::If(c, t, f) => self.uniform(c) && block(t) && block(f),
            ExprKind::Block(b) => block(b),
            _ => false,
        }
    }
}

/// Whether some thread may leave `b` (or the loop it is the body of) before the others: a
/// `return`, a panic, a `break` or `continue` under a condition that may differ between
/// threads, or inside a loop whose trip count may.
fn exits_divergently(b: &Block<RTy>, u: &Uniformity) -> bool {
    fn block(b: &Block<RTy>, u: &Uniformity, divergent: bool) -> bool {
        b.stmts.iter().any(|s| stmt(s, u, divergent))
    }
    fn stmt(s: &Stmt<RTy>, u: &Uniformity, divergent: bool) -> bool {
        // A `break` or `return` inside a value block (`let x = { if c { break; } 1 };`).
        let mut inside = false;
        for_each_expr(s, &mut |e| {
            value_blocks(e, u, divergent, &mut |b, d| {
                inside = inside || block(b, u, d)
            });
        });
        if inside {
            return true;
        }
        match s {
            Stmt::Return
            | Stmt::ReturnValue(_)
            | Stmt::Panic(_)
            | Stmt::Break(_)
            | Stmt::Continue(_) => divergent,
            Stmt::If(c, t, e) => {
                let d = divergent || !u.uniform(c);
                block(t, u, d) || e.as_ref().is_some_and(|e| block(e, u, d))
            }
            Stmt::While(c, b) => block(b, u, divergent || !u.uniform(c)),
            Stmt::Loop(b) | Stmt::Block(b) => block(b, u, divergent),
            Stmt::For(f) => block(
                &f.body,
                u,
                divergent
                    || !u.uniform(&f.start)
                    || !u.uniform(&f.end)
                    || f.step.as_ref().is_some_and(|s| !u.uniform(s)),
            ),
            Stmt::Labelled(_, inner) => stmt(inner, u, divergent),
            _ => false,
        }
    }
    block(b, u, false)
}

/// The walk that reports: tile operations under thread-dependent control, or after some
/// threads may have left.
struct Walk<'a, 'd> {
    u: &'a Uniformity,
    /// Where some threads may have left the kernel (a `return` or panic under a
    /// thread-dependent condition), once one has been met.
    left: Option<Span>,
    diags: &'d mut Diagnostics,
}

impl Walk<'_, '_> {
    /// `why`: the reason the code here may run on only some threads, if any.
    fn block(&mut self, b: &Block<RTy>, why: Option<&'static str>) {
        for s in &b.stmts {
            self.stmt(s, why);
        }
    }

    fn stmt(&mut self, s: &Stmt<RTy>, why: Option<&'static str>) {
        let thread_cond = "it is under a condition or loop bound that may differ between \
                           the block's threads (it depends on `thread_idx()`, a memory read, \
                           a device call, or a local given such a value)";
        let exits = "it is in a loop that some threads may leave early (a `break`, \
                     `continue`, `return` or panic under a thread-dependent condition)";
        match s {
            Stmt::Tile(op) => {
                let span = match &**op {
                    TileOp::Mma { span, .. } | TileOp::Copy { span, .. } => *span,
                    // Each thread waits for its own copies.
                    TileOp::Wait(_) => return,
                };
                // The block shares one copy: every thread must name the same corner.
                let corner = match &**op {
                    TileOp::Copy { row, col, .. }
                        if !self.u.uniform(row) || !self.u.uniform(col) =>
                    {
                        Some(
                            "its first row and column may differ between threads (they come \
                             from `thread_idx()`, a memory read, a device call, or a local \
                             given such a value), and the block copies one tile",
                        )
                    }
                    _ => None,
                };
                let reason = why.or(corner).or(self.left.map(|_| {
                    "some threads may have left the kernel before it (a `return` or panic under \
                     a thread-dependent condition: an `assert!` on data is one)"
                }));
                if let Some(reason) = reason {
                    let what = match &**op {
                        TileOp::Mma { tf32: false, .. } => "`mma`",
                        TileOp::Mma { tf32: true, .. } => "`mma_tf32`",
                        TileOp::Copy {
                            asynchronous: false,
                            ..
                        } => "`copy_tile`",
                        _ => "`copy_tile_async`",
                    };
                    self.diags.error(
                        span,
                        format!(
                            "every thread of the block must reach {what} together, but {reason}; \
                             keep it where every thread arrives (guard the loads and stores \
                             around it instead: `copy_tile` masks the matrix's edge itself)"
                        ),
                    );
                }
            }
            Stmt::If(c, t, e) => {
                let w = why.or((!self.u.uniform(c)).then_some(thread_cond));
                self.block(t, w);
                if let Some(e) = e {
                    self.block(e, w);
                }
            }
            Stmt::While(c, b) => {
                let w = why
                    .or((!self.u.uniform(c)).then_some(thread_cond))
                    .or(exits_divergently(b, self.u).then_some(exits));
                self.block(b, w);
            }
            Stmt::Loop(b) => {
                let w = why.or(exits_divergently(b, self.u).then_some(exits));
                self.block(b, w);
            }
            Stmt::For(f) => {
                let bounds = !self.u.uniform(&f.start)
                    || !self.u.uniform(&f.end)
                    || f.step.as_ref().is_some_and(|s| !self.u.uniform(s));
                let w = why
                    .or(bounds.then_some(thread_cond))
                    .or(exits_divergently(&f.body, self.u).then_some(exits));
                self.block(&f.body, w);
            }
            Stmt::Block(b) => self.block(b, why),
            Stmt::Labelled(_, inner) => self.stmt(inner, why),
            Stmt::Return | Stmt::Panic(_) if why.is_some() => {
                self.left.get_or_insert(Span::call_site());
            }
            _ => {}
        }
        // The statements of value blocks (`let x = { if c { return; } 1 };`), under their
        // conditions.
        let u = self.u;
        let mut blocks = Vec::new();
        for_each_expr(s, &mut |e| {
            value_blocks(e, u, false, &mut |b, d| blocks.push((b, d)));
        });
        for (b, divergent) in blocks {
            self.block(b, why.or(divergent.then_some(thread_cond)));
        }
    }
}

/// Calls `f` on each value block inside `e` (an `if` value's branches, a block value) with
/// whether threads may disagree on reaching it (`divergent`, or a condition on the way that
/// may differ between threads).
fn value_blocks<'e>(
    e: &'e Expr<RTy>,
    u: &Uniformity,
    divergent: bool,
    f: &mut dyn FnMut(&'e Block<RTy>, bool),
) {
    // A block's tail holds the blocks after it (`else if` chains and lowered `match`es
    // end in an `if` value): under the block's own condition.
    let block = |b: &'e Block<RTy>, d: bool, f: &mut dyn FnMut(&'e Block<RTy>, bool)| {
        f(b, d);
        if let Some(tail) = &b.tail {
            value_blocks(tail, u, d, f);
        }
    };
    match &e.kind {
        ExprKind::If(c, t, x) => {
            value_blocks(c, u, divergent, f);
            let d = divergent || !u.uniform(c);
            block(t, d, f);
            block(x, d, f);
        }
        ExprKind::Block(b) => block(b, divergent, f),
        _ => e.children(&mut |x| value_blocks(x, u, divergent, f)),
    }
}

/// Calls `f` on each expression a statement holds directly (not those of its blocks'
/// statements).
fn for_each_expr<'s>(s: &'s Stmt<RTy>, f: &mut impl FnMut(&'s Expr<RTy>)) {
    match s {
        Stmt::Let(_, Some(e))
        | Stmt::DeclareArray(_, Some(e))
        | Stmt::Eval(e)
        | Stmt::ReturnValue(e)
        | Stmt::Assign(_, _, e)
        | Stmt::If(e, ..)
        | Stmt::While(e, _) => f(e),
        Stmt::For(l) => {
            f(&l.start);
            f(&l.end);
            if let Some(s) = &l.step {
                f(s);
            }
        }
        _ => {}
    }
}

/// Whether the body has a tile operation anywhere, value blocks included.
fn has_tile_ops(b: &Block<RTy>) -> bool {
    b.stmts.iter().any(stmt_has_tile) || b.tail.as_ref().is_some_and(expr_has_tile)
}

fn stmt_has_tile(s: &Stmt<RTy>) -> bool {
    let mut inside = false;
    for_each_expr(s, &mut |e| inside = inside || expr_has_tile(e));
    inside
        || match s {
            Stmt::Tile(_) => true,
            Stmt::If(_, t, e) => has_tile_ops(t) || e.as_ref().is_some_and(has_tile_ops),
            Stmt::While(_, b) | Stmt::Loop(b) | Stmt::Block(b) => has_tile_ops(b),
            Stmt::For(f) => has_tile_ops(&f.body),
            Stmt::Labelled(_, inner) => stmt_has_tile(inner),
            _ => false,
        }
}

fn expr_has_tile(e: &Expr<RTy>) -> bool {
    match &e.kind {
        ExprKind::If(c, t, x) => expr_has_tile(c) || has_tile_ops(t) || has_tile_ops(x),
        ExprKind::Block(b) => has_tile_ops(b),
        _ => {
            let mut found = false;
            e.children(&mut |x| found = found || expr_has_tile(x));
            found
        }
    }
}

/// Every local a method is called on anywhere in `b` (`p.bump()`), or lent as `&mut` to a
/// device function (`f(&mut k)`): the function may change it, so it is never taken for
/// uniform.
fn receivers(b: &Block<RTy>, out: &mut Vec<usize>) {
    fn expr(e: &Expr<RTy>, out: &mut Vec<usize>) {
        match &e.kind {
            ExprKind::Receiver(p, _) | ExprKind::Borrow(p, true) => {
                if let Place::Local(v) | Place::LocalField(v, ..) = **p {
                    out.push(v);
                }
                place(p, out);
            }
            ExprKind::If(c, t, x) => {
                expr(c, out);
                receivers(t, out);
                receivers(x, out);
            }
            ExprKind::Block(b) => receivers(b, out),
            ExprKind::Lambda(l) => {
                out.extend(l.assigned_captures());
                receivers(&l.body, out);
            }
            _ => e.children(&mut |x| expr(x, out)),
        }
    }
    fn place(p: &Place<RTy>, out: &mut Vec<usize>) {
        match p {
            Place::Local(_) => {}
            Place::LocalField(_, steps, _) | Place::IndexField(_, _, steps, _) => {
                for s in steps {
                    if let FieldStep::Index(i) = s {
                        expr(&i.index.expr, out);
                    }
                }
                if let Place::IndexField(_, idx, ..) = p {
                    idx.iter().for_each(|i| expr(&i.expr, out));
                }
            }
            Place::Index(_, idx) => idx.iter().for_each(|i| expr(&i.expr, out)),
        }
    }
    fn stmt(s: &Stmt<RTy>, out: &mut Vec<usize>) {
        for_each_expr(s, &mut |e| expr(e, out));
        match s {
            Stmt::Assign(p, ..) => place(p, out),
            Stmt::Store4(_, i, vals) => {
                expr(&i.expr, out);
                vals.iter().for_each(|v| expr(v, out));
            }
            Stmt::Panic(p) => p.values.iter().for_each(|v| expr(v, out)),
            Stmt::Print(_, pieces) => {
                for p in pieces {
                    if let crate::ir::PrintPiece::Value(v, _) = p {
                        expr(v, out);
                    }
                }
            }
            Stmt::Tile(op) => {
                if let TileOp::Copy { row, col, .. } = &**op {
                    expr(row, out);
                    expr(col, out);
                }
            }
            Stmt::If(_, t, e) => {
                receivers(t, out);
                if let Some(e) = e {
                    receivers(e, out);
                }
            }
            Stmt::While(_, b) | Stmt::Loop(b) | Stmt::Block(b) => receivers(b, out),
            Stmt::For(f) => receivers(&f.body, out),
            Stmt::Labelled(_, inner) => stmt(inner, out),
            _ => {}
        }
    }
    b.stmts.iter().for_each(|s| stmt(s, out));
    if let Some(t) = &b.tail {
        expr(t, out);
    }
}
