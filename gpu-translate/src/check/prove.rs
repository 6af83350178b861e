//! Proofs that an index is in range, so its check can be left out of the GPU code.
//!
//! Rule: a check is removed only when the index provably lies below the extent on every
//! execution, from facts that cannot change between the proof and the access:
//!
//! - an enclosing `if` whose condition (or a conjunct of it) is `e < a.len()`, `e < m.rows()`,
//!   `e < m.cols()`, `e < v.shape().k` (or the same written `>`), where `e` is the index
//!   itself, built only from immutable locals, literals, thread geometry and extents;
//! - an earlier `if e >= a.len() { return; }` (or `continue`/`break`) in the same block;
//! - a `for k in s..a.len()` loop around the access (the loop variable cannot be assigned);
//! - intervals: an index whose largest possible value is below a constant extent (shared
//!   and local arrays), computed from literals, loop bounds, thread geometry (the
//!   `launch_bounds` threads bound `thread_idx()`), and `+ - * / % & >>` on them, where no
//!   step can overflow.
//!
//! Array lengths and extents do not change during a launch, and immutable locals are
//! assigned once, so a fact found on the way to an access holds at it.

use crate::ir::{
    Axis, BinOp, Block, Check, Conversion, Expr, ExprKind, Geometry, Index, Kernel, Lit, Place,
    Prim, RTy, Space, Stmt, Target, UnOp,
};

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
    /// How many checks were proven redundant.
    pub proven: usize,
}

impl<'a> Prover<'a> {
    pub fn new(k: &'a Kernel<RTy>, launch_threads: Option<u32>) -> Self {
        let t = launch_threads.map_or(1024, u128::from);
        Prover {
            k,
            max_block: [t.min(1024), t.min(1024), t.min(64)],
            facts: Vec::new(),
            ranges: vec![None; k.locals.len()],
            aliases: vec![None; k.locals.len()],
            proven: 0,
        }
    }

    /// Mark every provable check of `body` as [`Check::Proven`].
    pub fn block(&mut self, b: &mut Block<RTy>) {
        let depth = self.facts.len();
        for s in &mut b.stmts {
            self.stmt(s);
            // `if i >= n { return; }`: the rest of the block has `i < n`.
            if let Stmt::If(cond, then, None) = s {
                if ends_in_exit(then) {
                    let mut facts = Vec::new();
                    self.facts_when(cond, false, &mut facts);
                    self.facts.extend(facts);
                }
            }
        }
        if let Some(t) = &mut b.tail {
            self.expr(t);
        }
        self.facts.truncate(depth);
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
                }
            }
            Stmt::DeclareArray(_, init) => {
                if let Some(e) = init {
                    self.expr(e);
                }
            }
            Stmt::Eval(e) | Stmt::ReturnValue(e) => self.expr(e),
            Stmt::Store4(_, i, vals) => {
                self.expr(&mut i.expr);
                vals.iter_mut().for_each(|v| self.expr(v));
            }
            Stmt::Assign(place, _, value) => {
                self.expr(value);
                if let Place::Index(t, idx) = place {
                    self.access(*t, idx);
                }
            }
            Stmt::If(c, then, els) => {
                self.expr(c);
                let mut facts = Vec::new();
                self.facts_when(c, true, &mut facts);
                let depth = self.facts.len();
                self.facts.extend(facts);
                self.block(then);
                self.facts.truncate(depth);
                if let Some(els) = els {
                    let mut facts = Vec::new();
                    self.facts_when(c, false, &mut facts);
                    self.facts.extend(facts);
                    self.block(els);
                    self.facts.truncate(depth);
                }
            }
            Stmt::While(c, b) => {
                self.expr(c);
                self.block(b);
            }
            Stmt::Loop(b) | Stmt::Block(b) => self.block(b),
            Stmt::For(f) => {
                self.expr(&mut f.start);
                self.expr(&mut f.end);
                if let Some(s) = &mut f.step {
                    self.expr(s);
                }
                let depth = self.facts.len();
                let var = f.var;
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
                self.facts.truncate(depth);
            }
            Stmt::Break | Stmt::Continue | Stmt::Return | Stmt::Line(_) => {}
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
            ExprKind::Load4(_, i) => self.expr(&mut i.expr),
            ExprKind::Intrinsic(_, args)
            | ExprKind::DeviceCall(_, _, args)
            | ExprKind::Math(_, args) => args.iter_mut().for_each(|a| self.expr(a)),
            ExprKind::Unary(_, a) | ExprKind::Convert(_, a) => self.expr(a),
            ExprKind::Binary(op, l, r) => {
                self.expr(l);
                // `i < a.len() && a[i] > 0`: the right side runs only when the left holds.
                let mut facts = Vec::new();
                match op {
                    BinOp::And => self.facts_when(l, true, &mut facts),
                    BinOp::Or => self.facts_when(l, false, &mut facts),
                    _ => {}
                }
                let depth = self.facts.len();
                self.facts.extend(facts);
                self.expr(r);
                self.facts.truncate(depth);
            }
            ExprKind::If(c, t, f) => {
                self.expr(c);
                let depth = self.facts.len();
                let mut facts = Vec::new();
                self.facts_when(c, true, &mut facts);
                self.facts.extend(facts);
                self.block(t);
                self.facts.truncate(depth);
                let mut facts = Vec::new();
                self.facts_when(c, false, &mut facts);
                self.facts.extend(facts);
                self.block(f);
                self.facts.truncate(depth);
            }
            ExprKind::Block(b) => self.block(b),
            ExprKind::Lit(_)
            | ExprKind::Local(_)
            | ExprKind::Len(_)
            | ExprKind::Extent(..)
            | ExprKind::WholeArray(_)
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
            }
        }
    }

    fn proves(&self, t: Target, axis: usize, e: &Expr<RTy>) -> bool {
        let extent = match t {
            Target::Slice(s) => Some(Extent::Slice(s, axis)),
            Target::Array(a) if self.k.arrays[a].dims.len() <= 1 => Some(Extent::Array(a)),
            Target::Array(_) => None,
        };
        // A constant extent: the index's interval.
        if let Target::Array(a) = t {
            let arr = &self.k.arrays[a];
            if arr.space != Space::DynamicShared {
                if let (Some(&dim), Some((_, hi))) = (arr.dims.get(axis), self.range(e)) {
                    if hi < u128::from(dim) {
                        return true;
                    }
                }
            }
        }
        let (Some(extent), Some(key)) = (extent, canon(self.k, e)) else {
            return false;
        };
        self.facts
            .iter()
            .any(|f| f.extent == extent && f.index == key)
    }

    /// The extent `e` stands for: `a.len()`, `m.rows()`, `v.shape().2`, or a local
    /// holding one.
    fn extent(&self, e: &Expr<RTy>) -> Option<Extent> {
        match &e.kind {
            ExprKind::Len(Target::Slice(s)) if self.k.slices[*s].rank() == 1 => {
                Some(Extent::Slice(*s, 0))
            }
            ExprKind::Len(Target::Array(a)) if self.k.arrays[*a].dims.len() <= 1 => {
                Some(Extent::Array(*a))
            }
            ExprKind::Extent(s, k) => Some(Extent::Slice(*s, *k)),
            ExprKind::Local(v) if self.immutable(*v) => self.aliases[*v],
            _ => None,
        }
    }

    /// Facts that hold when `c` evaluates to `truth`.
    fn facts_when(&self, c: &Expr<RTy>, truth: bool, out: &mut Vec<Fact>) {
        match (&c.kind, truth) {
            (ExprKind::Binary(BinOp::And, a, b), true)
            | (ExprKind::Binary(BinOp::Or, a, b), false) => {
                self.facts_when(a, truth, out);
                self.facts_when(b, truth, out);
            }
            (ExprKind::Unary(UnOp::Not, a), _) => self.facts_when(a, !truth, out),
            (ExprKind::Binary(op, l, r), _) => {
                // Normalise to `small < big` when the comparison has the given truth.
                let (small, big) = match (op, truth) {
                    (BinOp::Lt, true) | (BinOp::Ge, false) => (l, r),
                    (BinOp::Gt, true) | (BinOp::Le, false) => (r, l),
                    _ => return,
                };
                if let (Some(index), Some(extent)) = (canon(self.k, small), self.extent(big)) {
                    out.push(Fact { index, extent });
                }
            }
            _ => {}
        }
    }

    /// The values an unsigned integer expression can take, when they are known and no
    /// step can overflow.
    fn range(&self, e: &Expr<RTy>) -> Option<(u128, u128)> {
        let max = type_max(e.ty)?;
        let r = match &e.kind {
            ExprKind::Lit(Lit::Int(v)) => {
                let v = u128::try_from(*v).ok()?;
                (v, v)
            }
            ExprKind::Local(v) if self.immutable(*v) => self.ranges[*v]?,
            ExprKind::Geometry(g, a) => {
                let axis = match a {
                    Axis::X => 0,
                    Axis::Y => 1,
                    Axis::Z => 2,
                };
                let b = self.max_block[axis];
                let grid: u128 = if axis == 0 { (1 << 31) - 1 } else { 65535 };
                match g {
                    Geometry::ThreadIdx => (0, b - 1),
                    Geometry::BlockDim => (1, b),
                    Geometry::BlockIdx => (0, grid - 1),
                    Geometry::GridDim => (1, grid),
                    Geometry::Grid => (0, grid * b - 1),
                    Geometry::GridSize => (1, grid * b),
                }
            }
            ExprKind::Convert(Conversion::As, inner) => {
                let r = self.range(inner)?;
                if r.1 > max {
                    return None;
                }
                r
            }
            ExprKind::Binary(op, l, r) => {
                let (a, b) = (self.range(l)?, self.range(r)?);
                match op {
                    BinOp::Add => (a.0 + b.0, a.1.checked_add(b.1)?),
                    BinOp::Sub if a.0 >= b.1 => (a.0 - b.1, a.1 - b.0),
                    BinOp::Mul => (a.0 * b.0, a.1.checked_mul(b.1)?),
                    BinOp::Div if b.0 > 0 => (a.0 / b.1, a.1 / b.0),
                    BinOp::Rem if b.0 > 0 => (0, a.1.min(b.1 - 1)),
                    BinOp::BitAnd => (0, a.1.min(b.1)),
                    BinOp::Shr if b.1 < 64 => (a.0 >> b.1, a.1 >> b.0),
                    BinOp::Shl if b.1 < 64 => (a.0 << b.0, a.1.checked_shl(b.1 as u32)?),
                    _ => return None,
                }
            }
            ExprKind::Math(spec, args) if args.len() == 2 && spec.name == "min" => {
                let (a, b) = (self.range(&args[0])?, self.range(&args[1])?);
                (a.0.min(b.0), a.1.min(b.1))
            }
            _ => return None,
        };
        (r.1 <= max).then_some(r)
    }
}

/// The largest value of an unsigned integer type (`None` for any other type: a signed
/// index has already been converted with `as usize`).
fn type_max(t: RTy) -> Option<u128> {
    match t {
        RTy::Prim(p @ (Prim::U32 | Prim::U64 | Prim::Usize)) => {
            p.int_range().map(|(_, max)| max as u128)
        }
        _ => None,
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
                Stmt::Return | Stmt::ReturnValue(_) | Stmt::Break | Stmt::Continue
            )
        })
}

/// A canonical text for a pure expression over immutable locals, literals, thread
/// geometry and extents; `None` for anything that may change or has effects.
fn canon(k: &Kernel<RTy>, e: &Expr<RTy>) -> Option<String> {
    Some(match &e.kind {
        ExprKind::Lit(Lit::Int(v)) => format!("{v}"),
        ExprKind::Local(v) if !k.locals[*v].mutable => format!("v{v}"),
        ExprKind::Geometry(g, a) => format!("{g:?}.{}", a.name()),
        ExprKind::Len(Target::Slice(s)) => format!("len(s{s})"),
        ExprKind::Len(Target::Array(a)) => format!("len(a{a})"),
        ExprKind::Extent(s, i) => format!("ext(s{s},{i})"),
        ExprKind::Convert(Conversion::As, inner) => {
            format!("({} as {:?})", canon(k, inner)?, e.ty)
        }
        ExprKind::Binary(op, l, r) if !op.is_comparison() => {
            format!("({} {} {})", canon(k, l)?, op.token(), canon(k, r)?)
        }
        _ => return None,
    })
}
