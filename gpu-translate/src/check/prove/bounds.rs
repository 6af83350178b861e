//! Bounds: the largest value an index can take ([`Prover::bound`], as a launch-uniform
//! [`Sym`] where it depends on the launch) and the value range of an expression, from
//! literals, loop bounds, thread geometry, the comparisons that hold where it is, and the
//! operations on them that cannot overflow; and whether a comparison proves an access.

use super::sums::linear;
use super::{Extent, Prover};
use crate::ir::sym::Sym;
use crate::ir::{
    Axis, BinOp, Conversion, Dim, Expr, ExprKind, Geometry, Kernel, Lit, Prim, RTy, Space, Target,
    UnOp,
};

impl Prover<'_> {
    pub(super) fn proves(&self, t: Target, axis: usize, e: &Expr<RTy>) -> bool {
        let extent = match t {
            Target::Slice(s) => Some(Extent::Slice(s, axis)),
            Target::Array(a) if self.k.arrays[a].dims.len() <= 1 => Some(Extent::Array(a)),
            Target::Array(_) => None,
        };
        // A constant extent: the index's interval.
        if let Target::Array(a) = t {
            let arr = &self.k.arrays[a];
            if arr.space != Space::DynamicShared {
                if let (Some(&Dim::Lit(dim)), Some((_, hi))) = (arr.dims.get(axis), self.range(e)) {
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
    pub(super) fn extent(&self, e: &Expr<RTy>) -> Option<Extent> {
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

    /// An upper bound of an unsigned integer expression over launch-uniform values, valid
    /// while no step of its evaluation wraps (see `crate::ir::sym`); `None` when there is none.
    pub(super) fn bound(&self, e: &Expr<RTy>) -> Option<Sym> {
        type_max(e.ty)?;
        // A static bound, when there is one, joins the symbolic one.
        let fixed = self.range(e).map(|(_, hi)| Sym::Const(hi));
        let sym = match &e.kind {
            ExprKind::Lit(_) => None,
            ExprKind::Local(v) => {
                let mut b = if self.uniform[*v] {
                    Some(Sym::Value(*v))
                } else {
                    self.bounds[*v].clone()
                };
                for (w, g) in self.guards.iter().flatten() {
                    if w == v {
                        b = Sym::min_of(b, Some(g.clone()));
                    }
                }
                b
            }
            ExprKind::Len(Target::Slice(s)) if self.k.slices[*s].rank() == 1 => {
                Some(Sym::Extent(*s, 0))
            }
            ExprKind::Extent(s, k) => Some(Sym::Extent(*s, *k)),
            ExprKind::Const(c) => Some(Sym::Named(*c)),
            ExprKind::Geometry(g, a) => {
                let axis = *a;
                let dim = Sym::BlockDim(axis);
                let grid = Sym::GridDim(axis);
                match g {
                    Geometry::ThreadIdx => Some(Sym::dec(dim)),
                    Geometry::BlockDim => Some(dim),
                    Geometry::BlockIdx => Some(Sym::dec(grid)),
                    Geometry::GridDim => Some(grid),
                    Geometry::Grid => Sym::mul(grid, dim).map(Sym::dec),
                    Geometry::GridSize => Sym::mul(grid, dim),
                }
            }
            // Widening (or same-width) conversions between unsigned types keep the value.
            ExprKind::Convert(Conversion::As, inner) => {
                let (from, to) = (type_max(inner.ty)?, type_max(e.ty)?);
                if from <= to {
                    self.bound(inner)
                } else {
                    None
                }
            }
            ExprKind::Binary(op, l, r) => {
                let lit = self.range(r).filter(|(lo, hi)| lo == hi).map(|(v, _)| v);
                match op {
                    BinOp::Add => Sym::add(self.bound(l)?, self.bound(r)?),
                    BinOp::Mul => Sym::mul(self.bound(l)?, self.bound(r)?),
                    BinOp::Div => match lit {
                        Some(c) => Sym::div(self.bound(l)?, c),
                        // `x / y <= x` for `y >= 1` (`y == 0` is a fault, never a value).
                        None => self.bound(l),
                    },
                    BinOp::Rem => Sym::min_of(self.bound(l), self.bound(r).map(Sym::dec)),
                    BinOp::BitAnd => Sym::min_of(self.bound(l), self.bound(r)),
                    // Shifts by the width or more are masked (or faults): no bound from them.
                    BinOp::Shr => Sym::shr(self.bound(l)?, lit.filter(|&c| c < width(l.ty))?),
                    BinOp::Shl => {
                        let by = lit.filter(|&c| c < width(l.ty))?;
                        Sym::mul(self.bound(l)?, Sym::Const(1u128 << by))
                    }
                    // `x - y <= x` when it cannot wrap.
                    BinOp::Sub => {
                        let (a, b) = (self.range(l), self.range(r));
                        match (a, b) {
                            (Some((lo, _)), Some((_, hi))) if lo >= hi => self.bound(l),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            ExprKind::Math(spec, args) if args.len() == 2 && spec.name == "min" => {
                Sym::min_of(self.bound(&args[0]), self.bound(&args[1]))
            }
            _ => None,
        };
        Sym::min_of(fixed, sym)
    }

    /// The bound of an index: [`Prover::bound`], and below a compared sum that dominates
    /// it (`i + 2 * s <= i + 3 * s < n`, as long as `i + 3 * s` did not wrap).
    pub(super) fn index_bound(&self, e: &Expr<RTy>) -> Option<Sym> {
        let mut b = self.bound(e);
        if !self.sums.is_empty() {
            if let Some(sum) = linear(self.k, e) {
                for g in self.sums.iter().filter(|g| sum.dominated_by(&g.sum)) {
                    let d = Sym::no_wrap(g.own.clone(), g.below.clone());
                    b = Sym::min_of(b, Some(d));
                }
            }
        }
        b
    }

    /// The values an unsigned integer expression can take, when they are known and no
    /// step can overflow.
    pub(super) fn range(&self, e: &Expr<RTy>) -> Option<(u128, u128)> {
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
                    // Amounts below the width only: larger ones are masked.
                    BinOp::Shr if b.1 < width(l.ty) => (a.0 >> b.1, a.1 >> b.0),
                    BinOp::Shl if b.1 < width(l.ty) => (a.0 << b.0, a.1.checked_shl(b.1 as u32)?),
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
pub(super) fn type_max(t: RTy) -> Option<u128> {
    match t {
        RTy::Prim(p @ (Prim::U32 | Prim::U64 | Prim::Usize)) => {
            p.int_range().map(|(_, max)| max as u128)
        }
        _ => None,
    }
}

/// The bits of an unsigned integer type (64 for anything else, which has no bound).
pub(super) fn width(t: RTy) -> u128 {
    match t {
        RTy::Prim(Prim::U32) => 32,
        _ => 64,
    }
}

/// A canonical text for a pure expression over immutable locals, literals, thread
/// geometry and extents; `None` for anything that may change or has effects.
pub(super) fn canon(k: &Kernel<RTy>, e: &Expr<RTy>) -> Option<String> {
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

/// The comparisons that hold where `c` evaluated to `truth`, among its conjuncts (and of
/// the disjuncts of a false `||`), each as `(small, big, strict)`: `small < big` when
/// strict, `small <= big` otherwise.
pub(super) fn comparisons<'e>(
    c: &'e Expr<RTy>,
    truth: bool,
    out: &mut Vec<(&'e Expr<RTy>, &'e Expr<RTy>, bool)>,
) {
    match (&c.kind, truth) {
        (ExprKind::Binary(BinOp::And, a, b), true) | (ExprKind::Binary(BinOp::Or, a, b), false) => {
            comparisons(a, truth, out);
            comparisons(b, truth, out);
        }
        (ExprKind::Unary(UnOp::Not, a), _) => comparisons(a, !truth, out),
        (ExprKind::Binary(op, l, r), _) => {
            let found = match (op, truth) {
                (BinOp::Lt, true) | (BinOp::Ge, false) => (&**l, &**r, true),
                (BinOp::Gt, true) | (BinOp::Le, false) => (&**r, &**l, true),
                (BinOp::Le, true) | (BinOp::Gt, false) => (&**l, &**r, false),
                (BinOp::Ge, true) | (BinOp::Lt, false) => (&**r, &**l, false),
                _ => return,
            };
            out.push(found);
        }
        _ => {}
    }
}
