//! Proofs that an index is in range, so its check can be left out of the GPU code.
//!
//! Two kinds of proof. A check is [`Check::Proven`] when the index lies below the extent
//! on every execution, from facts that cannot change between the proof and the access:
//!
//! - an enclosing `if` whose condition (or a conjunct of it) is `e < a.len()`, `e < m.rows()`,
//!   `e < m.cols()`, `e < v.shape().k` (or the same written `>`), where `e` is the index
//!   itself, built only from immutable locals, literals, thread geometry and extents;
//! - an earlier `if e >= a.len() { return; }` (or `continue`/`break`) in the same block;
//! - a `for k in s..a.len()` loop around the access (the loop variable cannot be assigned);
//! - bounds: an index whose largest possible value is below a constant extent (shared
//!   and local arrays), computed from literals, loop bounds, thread geometry (the
//!   `launch_bounds` threads bound `thread_idx()`), comparisons that guard the access, and
//!   `+ * / % & >> min` on them, where no step can overflow.
//!
//! A check is [`Check::Fast`] when the index's upper bound is a launch-uniform expression
//! ([`Sym`]: parameters, extents, block and grid dimensions) that may or may not lie below
//! the extent: `c[i]` under `if i < a.len()` is in range whenever `a.len() <= c.len()`.
//! The condition joins the kernel's [`Kernel::fast_path`], evaluated once at entry; the
//! emitter writes the body twice, and threads run the copy without those checks when every
//! condition holds (see `crate::ir::sym` for why that is sound).
//!
//! Variables: an immutable local is bounded by its value; a loop variable by the loop's
//! end; a mutable local only by what cannot grow (a variable only ever divided or shifted
//! right keeps its first value's bound) and by comparisons since its last assignment. A
//! comparison about a variable lasts until the variable is assigned, and one from outside
//! a loop does not hold inside it when the loop assigns the variable.

use crate::ir::sym::{FastCondition, Sym};
use crate::ir::{
    BinOp, Block, Check, Dim, Expr, ExprKind, FieldIndex, FieldStep, Index, Kernel, Param, Place,
    RTy, Space, Stmt, Target, VarId,
};

mod assigned;
mod bounds;
mod sums;

use assigned::{find_growth, mark_assigned};
use bounds::{canon, comparisons, type_max};
use sums::{linear, SumGuard};

/// What an index is compared with: an extent of an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extent {
    /// Axis `k` of array parameter `s` (axis 0 of a 1-D one is its length).
    Slice(usize, usize),
    /// The length of a 1-D array declared in the body.
    Array(usize),
}

/// A fact: the expression (in canonical form) is below the extent.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fact {
    index: String,
    extent: Extent,
}

pub(super) struct Prover<'a> {
    k: &'a Kernel<RTy>,
    /// Threads per block at most, per axis (from `launch_bounds`, else CUDA's limits).
    max_block: [u128; 3],
    facts: Vec<Fact>,
    /// Immutable locals whose value is known to lie in an interval.
    ranges: Vec<Option<(u128, u128)>>,
    /// Immutable locals that hold an extent (`let n = a.len();`).
    aliases: Vec<Option<Extent>>,
    /// Bounds of locals that hold wherever the local is in scope: immutable locals, loop
    /// variables, and mutable locals that never grow.
    bounds: Vec<Option<Sym>>,
    /// Mutable locals only ever divided or shifted right by constants.
    shrinking: Vec<bool>,
    /// Immutable unsigned scalar parameters: launch-uniform values.
    uniform: Vec<bool>,
    /// Bounds from comparisons, scoped like `facts`; `None` once the variable is assigned.
    guards: Vec<Option<(VarId, Sym)>>,
    /// Comparisons `e < E` of sums over immutable values (`i + 3 * s < n`), scoped like
    /// `facts`: they bound every sum they dominate term by term (`i + 2 * s`).
    sums: Vec<SumGuard>,
    /// Whether checks may move to the fast path (kernels, not device functions).
    versioning: bool,
    /// The fast path's conditions, each once.
    pub fast_path: Vec<FastCondition>,
    /// How many checks were proven redundant.
    pub proven: usize,
    /// How many checks moved to the fast path's conditions.
    pub versioned: usize,
}

impl<'a> Prover<'a> {
    /// A prover for `body`, the body of `k` (taken out of it, to be marked).
    pub fn new(
        k: &'a Kernel<RTy>,
        body: &Block<RTy>,
        launch_threads: Option<u32>,
        versioning: bool,
    ) -> Self {
        let t = launch_threads.map_or(1024, u128::from);
        let mut uniform = vec![false; k.locals.len()];
        for p in &k.params {
            if let Param::Scalar(v) = *p {
                uniform[v] = !k.locals[v].mutable && type_max(k.locals[v].ty).is_some();
            }
        }
        let mut shrinking: Vec<bool> = k.locals.iter().map(|l| l.mutable).collect();
        find_growth(body, &mut shrinking);
        Prover {
            k,
            max_block: [t.min(1024), t.min(1024), t.min(64)],
            facts: Vec::new(),
            ranges: vec![None; k.locals.len()],
            aliases: vec![None; k.locals.len()],
            bounds: vec![None; k.locals.len()],
            shrinking,
            uniform,
            guards: Vec::new(),
            sums: Vec::new(),
            versioning,
            fast_path: Vec::new(),
            proven: 0,
            versioned: 0,
        }
    }

    /// Mark every provable check of `body` as [`Check::Proven`].
    pub fn block(&mut self, b: &mut Block<RTy>) {
        let depth = self.depth();
        for s in &mut b.stmts {
            self.stmt(s);
            // `if i >= n { return; }`: the rest of the block has `i < n`.
            if let Stmt::If(cond, then, None) = s {
                if ends_in_exit(then) {
                    self.assume(cond, false);
                }
            }
        }
        if let Some(t) = &mut b.tail {
            self.expr(t);
        }
        self.restore(depth);
    }

    /// Where the scoped facts stand, for [`Prover::restore`].
    fn depth(&self) -> (usize, usize, usize) {
        (self.facts.len(), self.guards.len(), self.sums.len())
    }

    fn restore(&mut self, (facts, guards, sums): (usize, usize, usize)) {
        self.facts.truncate(facts);
        self.guards.truncate(guards);
        self.sums.truncate(sums);
    }

    /// Add what holds where `c` evaluated to `truth`: for each comparison `small < big`
    /// (or `small <= big`) among its conjuncts, a fact when `small` is an index and `big`
    /// an extent, a bound of `small` when it is a variable, and a compared sum otherwise.
    fn assume(&mut self, c: &Expr<RTy>, truth: bool) {
        let mut found = Vec::new();
        comparisons(c, truth, &mut found);
        for (small, big, strict) in found {
            if strict {
                if let (Some(index), Some(extent)) = (canon(self.k, small), self.extent(big)) {
                    self.facts.push(Fact { index, extent });
                }
            }
            if type_max(small.ty).is_none() {
                continue;
            }
            let Some(b) = self.bound(big) else {
                continue;
            };
            let below = if strict { Sym::dec(b) } else { b };
            match small.kind {
                ExprKind::Local(v) => self.guards.push(Some((v, below))),
                _ if strict => {
                    if let (Some(sum), Some(own)) = (linear(self.k, small), self.bound(small)) {
                        self.sums.push(SumGuard { sum, below, own });
                    }
                }
                _ => {}
            }
        }
    }

    /// A variable was assigned: comparisons about it no longer hold.
    fn forget(&mut self, v: VarId) {
        for g in &mut self.guards {
            if matches!(g, Some((w, _)) if *w == v) {
                *g = None;
            }
        }
    }

    /// Entering a loop: comparisons about the variables it assigns do not hold in it
    /// (the next iteration comes after the assignment).
    fn forget_assigned_in(&mut self, b: &Block<RTy>) {
        let mut assigned = vec![false; self.k.locals.len()];
        mark_assigned(b, &mut assigned);
        for (v, a) in assigned.into_iter().enumerate() {
            if a {
                self.forget(v);
            }
        }
    }

    fn immutable(&self, v: usize) -> bool {
        !self.k.locals[v].mutable
    }

    fn stmt(&mut self, s: &mut Stmt<RTy>) {
        match s {
            Stmt::Let(v, init) => {
                if let Some(e) = init {
                    self.expr(e);
                    if self.immutable(*v) {
                        self.ranges[*v] = self.range(e);
                        self.aliases[*v] = self.extent(e);
                    }
                    if self.immutable(*v) || self.shrinking[*v] {
                        self.bounds[*v] = self.bound(e);
                    }
                }
            }
            Stmt::DeclareArray(_, init) => {
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            Stmt::Eval(e) | Stmt::ReturnValue(e) => self.expr(e),
            // `mma` writes only its accumulator, whose elements the prover does not follow.
            Stmt::Tile(op) => {
                if let crate::ir::TileOp::Copy { row, col, .. } = &mut **op {
                    self.expr(row);
                    self.expr(col);
                }
            }
            Stmt::Store4(t, i, vals) => {
                let t = *t;
                vals.iter_mut().for_each(|v| self.expr(v));
                self.vector(t, i, 4);
            }
            Stmt::Assign(place, _, value) => {
                self.expr(value);
                self.written_place(place);
            }
            Stmt::If(c, then, els) => {
                self.expr(c);
                let depth = self.depth();
                self.assume(c, true);
                self.block(then);
                self.restore(depth);
                if let Some(els) = els {
                    self.assume(c, false);
                    self.block(els);
                    self.restore(depth);
                }
            }
            Stmt::While(c, b) => {
                self.forget_assigned_in(b);
                self.expr(c);
                let depth = self.depth();
                self.assume(c, true);
                self.block(b);
                self.restore(depth);
            }
            Stmt::Loop(b) => {
                self.forget_assigned_in(b);
                self.block(b);
            }
            Stmt::Block(b) => self.block(b),
            Stmt::For(f) => {
                self.expr(&mut f.start);
                self.expr(&mut f.end);
                if let Some(s) = &mut f.step {
                    self.expr(s);
                }
                self.forget_assigned_in(&f.body);
                let depth = self.depth();
                let var = f.var;
                self.bounds[var] = self.bound(&f.end).map(Sym::dec);
                if let (Some((lo, _)), Some((_, hi))) = (self.range(&f.start), self.range(&f.end)) {
                    if hi > lo {
                        self.ranges[var] = Some((lo, hi - 1));
                    }
                }
                if let Some(extent) = self.extent(&f.end) {
                    self.facts.push(Fact {
                        index: format!("v{var}"),
                        extent,
                    });
                }
                self.block(&mut f.body);
                self.restore(depth);
            }
            Stmt::Print(_, pieces) => {
                for p in pieces {
                    if let crate::ir::PrintPiece::Value(e, _) = p {
                        self.expr(e);
                    }
                }
            }
            Stmt::Panic(p) => p.values.iter_mut().for_each(|e| self.expr(e)),
            Stmt::Labelled(_, s) => self.stmt(s),
            Stmt::Break(_) | Stmt::Continue(_) | Stmt::Return | Stmt::Line(_) => {}
        }
    }

    /// A place written (by an assignment, or a method through its receiver): its
    /// indices proven, what was known of its local forgotten.
    fn written_place(&mut self, place: &mut Place<RTy>) {
        match place {
            Place::Index(t, idx) => self.access(*t, idx),
            Place::IndexField(t, idx, path, _) => {
                self.access(*t, idx);
                self.field_path(path);
            }
            Place::LocalField(v, path, _) => {
                self.field_path(path);
                self.forget(*v);
            }
            Place::Local(v) => self.forget(*v),
        }
    }

    fn expr(&mut self, e: &mut Expr<RTy>) {
        match &mut e.kind {
            ExprKind::Index(t, idx) => {
                let t = *t;
                self.access(t, idx);
            }
            ExprKind::Atomic(_, t, idx, args) => {
                let t = *t;
                args.iter_mut().for_each(|a| self.expr(a));
                self.access(t, idx);
            }
            ExprKind::Load4(t, i) => {
                let t = *t;
                self.vector(t, i, 4);
            }
            ExprKind::Receiver(p, _) | ExprKind::Borrow(p, true) => self.written_place(p),
            ExprKind::MmaCoord(_, _, i) => self.expr(i),
            ExprKind::SubSlice(_, a, b, _) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::RandomDraw(_, s, i) => {
                let s = *s;
                self.vector(Target::Slice(s), i, 2);
            }
            // A closure handed to a device function runs during the call, any number of
            // times: what was known of the locals it assigns holds neither inside it nor
            // after it (forgotten outside the scope `restore` keeps).
            ExprKind::Lambda(l) => {
                // A `move` closure assigns copies of its own.
                if !l.by_copy {
                    for v in l.assigned_captures() {
                        self.forget(v);
                    }
                }
                self.forget_assigned_in(&l.body);
                let depth = self.depth();
                self.block(&mut l.body);
                self.restore(depth);
            }
            ExprKind::Intrinsic(_, args)
            | ExprKind::DeviceCall(_, _, args)
            | ExprKind::ClosureCall(_, args)
            | ExprKind::Math(_, args)
            | ExprKind::Tuple(args)
            | ExprKind::StructLit(_, args)
            | ExprKind::FieldArray(args) => args.iter_mut().for_each(|a| self.expr(a)),
            ExprKind::FieldIndex(a, _, i) => {
                self.expr(a);
                self.field_index(i);
            }
            ExprKind::Unary(_, a)
            | ExprKind::Convert(_, a)
            | ExprKind::TuplePart(a, _)
            | ExprKind::Field(a, _) => self.expr(a),
            ExprKind::Binary(op, l, r) => {
                self.expr(l);
                // `i < a.len() && a[i] > 0`: the right side runs only when the left holds.
                let depth = self.depth();
                match op {
                    BinOp::And => self.assume(l, true),
                    BinOp::Or => self.assume(l, false),
                    _ => {}
                }
                self.expr(r);
                self.restore(depth);
            }
            ExprKind::If(c, t, f) => {
                self.expr(c);
                let depth = self.depth();
                self.assume(c, true);
                self.block(t);
                self.restore(depth);
                self.assume(c, false);
                self.block(f);
                self.restore(depth);
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Lit(_)
            | ExprKind::Local(_)
            | ExprKind::Const(_)
            | ExprKind::Len(_)
            | ExprKind::Extent(..)
            | ExprKind::WholeArray(_)
            | ExprKind::Borrow(_, false)
            | ExprKind::NoneArg
            | ExprKind::Zero
            | ExprKind::Geometry(..) => {}
        }
    }

    /// Try to prove each index of an access of `t`.
    fn access(&mut self, t: Target, idx: &mut [Index<RTy>]) {
        for (axis, i) in idx.iter_mut().enumerate() {
            self.expr(&mut i.expr);
            if i.check != Check::Required {
                continue;
            }
            if self.proves(t, axis, &i.expr) {
                i.check = Check::Proven;
                self.proven += 1;
                continue;
            }
            let Some(bound) = self.index_bound(&i.expr) else {
                continue;
            };
            let limit = match t {
                Target::Slice(s) => Sym::Extent(s, axis),
                Target::Array(a) => match self.k.arrays[a].dims.get(axis) {
                    Some(_) if self.k.arrays[a].space == Space::DynamicShared => continue,
                    Some(&Dim::Lit(d)) => Sym::Const(u128::from(d)),
                    Some(&Dim::Const(c)) => Sym::Named(c),
                    None => continue,
                },
            };
            i.check = self.settle(bound, limit);
        }
    }

    /// Try to prove each index of a path into a struct.
    fn field_path(&mut self, path: &mut [FieldStep<RTy>]) {
        for step in path {
            if let FieldStep::Index(i) = step {
                self.field_index(i);
            }
        }
    }

    /// Try to prove an index of an array field below the field's length.
    fn field_index(&mut self, f: &mut FieldIndex<RTy>) {
        self.expr(&mut f.index.expr);
        if f.index.check != Check::Required {
            return;
        }
        if let Some(bound) = self.index_bound(&f.index.expr) {
            f.index.check = self.settle(bound, Sym::Const(u128::from(f.len)));
        }
    }

    /// A vector access of `width` elements at `width i`: in range when `i < n / width`.
    fn vector(&mut self, t: Target, i: &mut Index<RTy>, width: u128) {
        self.expr(&mut i.expr);
        if i.check != Check::Required {
            return;
        }
        if let Some(bound) = self.index_bound(&i.expr) {
            let extent = match t {
                Target::Slice(s) => Sym::Extent(s, 0),
                Target::Array(a) => match self.k.arrays[a].dims.first() {
                    _ if self.k.arrays[a].space == Space::DynamicShared => return,
                    Some(&Dim::Lit(d)) => Sym::Const(u128::from(d)),
                    Some(&Dim::Const(c)) => Sym::Named(c),
                    None => return,
                },
            };
            let Some(limit) = Sym::div(extent, width) else {
                return;
            };
            i.check = self.settle(bound, limit);
        }
    }

    /// The check of an index bounded by `bound` in an axis of extent `limit`: proven when
    /// both are constants and it holds, on the fast path when either is symbolic.
    fn settle(&mut self, bound: Sym, limit: Sym) -> Check {
        match (bound.largest(), limit.constant()) {
            (b, Some(l)) if b < l => {
                self.proven += 1;
                Check::Proven
            }
            _ if bound.constant().is_some() && limit.constant().is_some() => Check::Required,
            _ if !self.versioning || bound.at_least(&limit) => Check::Required,
            // Deeper than the runtime evaluates: kept.
            _ if bound.depth().max(limit.depth()) > gpu_contract::fast_path::STACK => {
                Check::Required
            }
            _ => {
                // One condition per limit for constant bounds: the largest.
                let same = self.fast_path.iter_mut().find(|c| {
                    c.limit == limit
                        && (c.bound == bound
                            || (c.bound.constant().is_some() && bound.constant().is_some()))
                });
                match same {
                    Some(c) => {
                        if let (Some(old), Some(new)) = (c.bound.constant(), bound.constant()) {
                            c.bound = Sym::Const(old.max(new));
                        }
                    }
                    None => self.fast_path.push(FastCondition { bound, limit }),
                }
                self.versioned += 1;
                Check::Fast
            }
        }
    }
}

/// Whether a block ends by leaving it unconditionally.
fn ends_in_exit(b: &Block<RTy>) -> bool {
    b.stmts
        .iter()
        .rev()
        .find(|s| !matches!(s, Stmt::Line(_)))
        .is_some_and(|s| {
            matches!(
                s,
                Stmt::Return | Stmt::ReturnValue(_) | Stmt::Break(_) | Stmt::Continue(_)
            )
        })
}
