//! Symbolic upper bounds over launch-uniform values, for the kernel's fast path.
//!
//! A [`Sym`] is an expression over values every thread of a launch shares: constants,
//! the kernel's immutable unsigned scalar parameters, array extents, `block_dim()` and
//! `grid_dim()`. The prover bounds an index by one (`i < a.len()` bounds `i` by
//! `a.len() - 1`); when that bound is not a constant, the check moves to a condition of
//! the kernel's fast path, `bound < extent`. The launcher evaluates every condition on the
//! host once the launch's dimensions are final and tells the kernel whether all hold; the
//! kernel then runs a copy of its body without those checks (see `emit_cuda`).
//!
//! Soundness rests on two rules. Every step bounds the 64-bit value the kernel computes,
//! and holds only while no step of the kernel's own arithmetic wraps: `Add` and `Mul` of
//! bounds below 2^64 bound sums and products that did not wrap. And the launcher evaluates
//! bounds with saturating steps (`gpu_contract::fast_path`): any step that would pass
//! 2^64 - 1 yields 2^64 - 1, which every later step keeps (only `Min` and a product with 0
//! may leave it, and both stay upper bounds), so a condition `bound < extent` fails
//! whenever a step saturated; extents are below 2^64 - 1.

use super::{Axis, ConstId, SliceId, VarId};

/// An upper bound, or (as [`Sym::Value`], [`Sym::Extent`] and the geometry) an exact
/// launch-uniform value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sym {
    /// A constant.
    Const(u128),
    /// An immutable unsigned scalar parameter.
    Value(VarId),
    /// Extent `k` of array parameter `s` (a 1-D array's length is extent 0).
    Extent(SliceId, usize),
    /// An unsigned module constant (its value is known only to rustc, and so to the
    /// launcher).
    Named(ConstId),
    /// `block_dim()` on an axis.
    BlockDim(Axis),
    /// `grid_dim()` on an axis.
    GridDim(Axis),
    /// `a + b`.
    Add(Box<Sym>, Box<Sym>),
    /// `a * b`.
    Mul(Box<Sym>, Box<Sym>),
    /// `a / c`, `c > 0`.
    Div(Box<Sym>, u128),
    /// `a >> c`.
    Shr(Box<Sym>, u32),
    /// `min(a, b)`.
    Min(Box<Sym>, Box<Sym>),
    /// `a - 1`, and 0 for 0: the bound of `x` from `x < a`.
    Dec(Box<Sym>),
    /// `value`, valid only when `check` (the bound of an expression whose evaluation must
    /// not have wrapped) did not saturate; saturated otherwise.
    NoWrap(Box<Sym>, Box<Sym>),
}

/// The largest value a bound may reach: 64-bit unsigned arithmetic.
const MAX: u128 = u64::MAX as u128;

impl Sym {
    /// The constant, when the bound is one.
    pub fn constant(&self) -> Option<u128> {
        match self {
            Sym::Const(c) => Some(*c),
            _ => None,
        }
    }

    /// Whether a constant of the bound is past what 64-bit arithmetic holds: such a bound
    /// is no bound (its constant could not be evaluated).
    fn too_large(&self) -> bool {
        self.constant().is_some_and(|c| c > MAX)
    }

    /// `a + b`, folded.
    pub fn add(a: Sym, b: Sym) -> Option<Sym> {
        if a.too_large() || b.too_large() {
            return None;
        }
        Some(match (a.constant(), b.constant()) {
            (Some(x), Some(y)) => Sym::Const(checked(x + y)?),
            (Some(0), _) => b,
            (_, Some(0)) => a,
            _ => Sym::Add(Box::new(a), Box::new(b)),
        })
    }

    /// `a * b`, folded.
    pub fn mul(a: Sym, b: Sym) -> Option<Sym> {
        if a.too_large() || b.too_large() {
            return None;
        }
        Some(match (a.constant(), b.constant()) {
            (Some(x), Some(y)) => Sym::Const(checked(x.checked_mul(y)?)?),
            (Some(0), _) | (_, Some(0)) => Sym::Const(0),
            (Some(1), _) => b,
            (_, Some(1)) => a,
            _ => Sym::Mul(Box::new(a), Box::new(b)),
        })
    }

    /// `a / c`, folded; `None` for `c == 0`.
    pub fn div(a: Sym, c: u128) -> Option<Sym> {
        Some(match (a.constant(), c) {
            (_, 0) => return None,
            (_, 1) => a,
            (Some(x), c) => Sym::Const(x / c),
            _ => Sym::Div(Box::new(a), c),
        })
    }

    /// `a >> c`, folded; `None` when `c` is not below 64.
    pub fn shr(a: Sym, c: u128) -> Option<Sym> {
        let c = u32::try_from(c).ok().filter(|&c| c < 64)?;
        Some(match a.constant() {
            Some(x) => Sym::Const(x >> c),
            None if c == 0 => a,
            None => Sym::Shr(Box::new(a), c),
        })
    }

    /// `min(a, b)`, folded: nested minimums flattened, one constant (the smallest, and
    /// none when a term's largest value is already below it), no term twice.
    pub fn min(a: Sym, b: Sym) -> Sym {
        fn terms(s: Sym, out: &mut Vec<Sym>) {
            match s {
                Sym::Min(a, b) => {
                    terms(*a, out);
                    terms(*b, out);
                }
                s => out.push(s),
            }
        }
        let mut all = Vec::new();
        terms(a, &mut all);
        terms(b, &mut all);
        let lowest = all.iter().map(Sym::largest).min().unwrap_or(MAX);
        let mut kept: Vec<Sym> = Vec::new();
        for t in all {
            let redundant = match t.constant() {
                Some(c) => c > lowest || kept.iter().any(|k| k.largest() <= c),
                None => kept.contains(&t),
            };
            if !redundant {
                kept.push(t);
            }
        }
        // A bound from the launch's geometry alone (`grid_size - 1` for `grid_1d()`) beside
        // one from the arguments (`a.len() - 1` under `i < a.len()`): keep the latter, a
        // condition the launcher evaluates faster and that holds as often in practice.
        if kept
            .iter()
            .any(|t| !t.geometric() && t.constant().is_none())
        {
            kept.retain(|t| !t.geometric());
        }
        // No array reaches 2^40 elements (a GPU's memory is far smaller), so beside a
        // symbolic term a constant that large changes no condition's outcome: drop it, for
        // a shorter condition.
        if kept.iter().any(|t| t.constant().is_none()) {
            kept.retain(|t| t.constant().is_none_or(|c| c < 1 << 40));
        }
        // A constant no smaller than a symbolic term's largest value says nothing.
        let symbolic_max = kept
            .iter()
            .filter(|t| t.constant().is_none())
            .map(Sym::largest)
            .min();
        if let Some(m) = symbolic_max {
            kept.retain(|t| t.constant().is_none_or(|c| c < m));
        }
        let mut it = kept.into_iter();
        let first = it.next().unwrap_or(Sym::Const(lowest));
        it.fold(first, |acc, t| Sym::Min(Box::new(acc), Box::new(t)))
    }

    /// Whether the bound depends on the launch's dimensions and nothing else (constants
    /// aside).
    fn geometric(&self) -> bool {
        fn walk(s: &Sym, dims: &mut bool) -> bool {
            match s {
                Sym::Const(_) => true,
                Sym::BlockDim(_) | Sym::GridDim(_) => {
                    *dims = true;
                    true
                }
                Sym::Value(_) | Sym::Extent(..) | Sym::Named(_) => false,
                Sym::Add(a, b) | Sym::Mul(a, b) | Sym::Min(a, b) | Sym::NoWrap(a, b) => {
                    walk(a, dims) && walk(b, dims)
                }
                Sym::Div(a, _) | Sym::Shr(a, _) | Sym::Dec(a) => walk(a, dims),
            }
        }
        let mut dims = false;
        walk(self, &mut dims) && dims
    }

    /// The largest value the bound can take on any launch: CUDA's limits for the block
    /// and grid dimensions, 2^64 - 1 for parameters and extents.
    pub fn largest(&self) -> u128 {
        match self {
            Sym::Const(c) => *c,
            Sym::Value(_) | Sym::Extent(..) | Sym::Named(_) => MAX,
            Sym::BlockDim(Axis::Z) => 64,
            Sym::BlockDim(_) => 1024,
            Sym::GridDim(Axis::X) => (1 << 31) - 1,
            Sym::GridDim(_) => 65535,
            Sym::Add(a, b) => (a.largest() + b.largest()).min(MAX),
            Sym::Mul(a, b) => a.largest().saturating_mul(b.largest()).min(MAX),
            Sym::Div(a, c) => a.largest() / c,
            Sym::Shr(a, c) => a.largest() >> c,
            Sym::Min(a, b) => a.largest().min(b.largest()),
            Sym::Dec(a) => a.largest().saturating_sub(1),
            Sym::NoWrap(check, value) if check.largest() < MAX => value.largest(),
            Sym::NoWrap(..) => MAX,
        }
    }

    /// The smaller of two optional bounds.
    pub fn min_of(a: Option<Sym>, b: Option<Sym>) -> Option<Sym> {
        match (a, b) {
            (Some(a), Some(b)) => Some(Sym::min(a, b)),
            (a, b) => a.or(b),
        }
    }

    /// Whether the bound is plainly not below `limit` whenever anything but 0 is added:
    /// a sum with `limit` or `limit - 1` as one term and other terms. Such a condition
    /// would fail on almost every launch and take the fast path from the kernel's other
    /// checks, so the prover keeps that check instead.
    pub fn at_least(&self, limit: &Sym) -> bool {
        fn terms<'s>(s: &'s Sym, out: &mut Vec<&'s Sym>) {
            match s {
                Sym::Add(a, b) => {
                    terms(a, out);
                    terms(b, out);
                }
                s => out.push(s),
            }
        }
        let mut all = Vec::new();
        terms(self, &mut all);
        let dec = Sym::dec(limit.clone());
        let has_limit = all.iter().any(|t| *t == limit || **t == dec);
        has_limit && (all.len() > 1 || *self == *limit)
    }

    /// `value` where `check` did not saturate, folded when `check` cannot.
    pub fn no_wrap(check: Sym, value: Sym) -> Sym {
        if check.largest() < MAX {
            value
        } else {
            Sym::NoWrap(Box::new(check), Box::new(value))
        }
    }

    /// `a - 1` (0 for 0), folded.
    pub fn dec(a: Sym) -> Sym {
        match a {
            Sym::Const(x) => Sym::Const(x.saturating_sub(1)),
            a => Sym::Dec(Box::new(a)),
        }
    }

    /// How many values evaluating it in postfix order holds at once (the runtime's stack
    /// is `gpu_contract::fast_path::STACK`).
    pub fn depth(&self) -> usize {
        match self {
            Sym::Add(a, b) | Sym::Mul(a, b) | Sym::Min(a, b) | Sym::NoWrap(a, b) => {
                a.depth().max(b.depth() + 1)
            }
            Sym::Div(a, _) | Sym::Shr(a, _) | Sym::Dec(a) => a.depth(),
            _ => 1,
        }
    }
}

/// `x` when a bound of 64-bit arithmetic may take it.
fn checked(x: u128) -> Option<u128> {
    (x <= MAX).then_some(x)
}

/// A condition of the fast path: `bound < limit`, both launch-uniform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FastCondition {
    /// The index's upper bound.
    pub bound: Sym,
    /// The extent it must stay below (an extent, a constant, or a quarter of an extent
    /// for a 4-element vector).
    pub limit: Sym,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_fold_and_overflow_is_no_bound() {
        assert_eq!(Sym::add(Sym::Const(2), Sym::Const(3)), Some(Sym::Const(5)));
        assert_eq!(Sym::mul(Sym::Const(1 << 40), Sym::Const(1 << 30)), None);
        // A constant past 64 bits is no bound, even beside a symbol.
        assert_eq!(Sym::mul(Sym::Value(0), Sym::Const(1 << 70)), None);
        assert_eq!(Sym::dec(Sym::Const(0)), Sym::Const(0));
        assert_eq!(Sym::div(Sym::Const(9), 0), None);
        assert_eq!(Sym::shr(Sym::Const(9), 64), None);
        let e = Sym::Extent(0, 0);
        assert_eq!(Sym::mul(e.clone(), Sym::Const(0)), Some(Sym::Const(0)));
        assert_eq!(Sym::min(e.clone(), e.clone()), e);
        // Nested minimums keep the smallest constant once; a term of the geometry alone
        // goes when another bounds as well.
        let d = Sym::dec(Sym::BlockDim(Axis::X));
        let m = Sym::min(Sym::Const(255), Sym::min(Sym::Const(127), d.clone()));
        assert_eq!(m, Sym::Min(Box::new(Sym::Const(127)), Box::new(d.clone())));
        assert_eq!(m.largest(), 127);
        let e = Sym::dec(Sym::Extent(0, 0));
        assert_eq!(Sym::min(d.clone(), e.clone()), e);
        // A constant above every value of the other term goes.
        assert_eq!(Sym::min(Sym::Const(5000), d.clone()), d);
    }

    #[test]
    fn depth_counts_the_values_held_at_once() {
        let d = Sym::dec(Sym::BlockDim(Axis::X));
        assert_eq!(d.depth(), 1);
        let s = Sym::add(
            Sym::Value(0),
            Sym::mul(Sym::Value(1), Sym::Value(2)).unwrap(),
        )
        .unwrap();
        assert_eq!(s.depth(), 3);
    }
}
