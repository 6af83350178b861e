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

use proc_macro2::TokenStream;
use quote::quote;

use crate::ir::{Axis, SliceId, VarId};

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

    /// `a + b`, folded.
    pub fn add(a: Sym, b: Sym) -> Option<Sym> {
        Some(match (a.constant(), b.constant()) {
            (Some(x), Some(y)) => Sym::Const(checked(x + y)?),
            (Some(0), _) => b,
            (_, Some(0)) => a,
            _ => Sym::Add(Box::new(a), Box::new(b)),
        })
    }

    /// `a * b`, folded.
    pub fn mul(a: Sym, b: Sym) -> Option<Sym> {
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

    /// The largest value the bound can take on any launch: CUDA's limits for the block
    /// and grid dimensions, 2^64 - 1 for parameters and extents.
    pub fn largest(&self) -> u128 {
        match self {
            Sym::Const(c) => *c,
            Sym::Value(_) | Sym::Extent(..) => MAX,
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

    /// The bound as a Rust `u64` expression for the launcher, evaluated with the
    /// saturating steps of `gpu_contract::fast_path` (at `sat`, a path to them). `value`
    /// and `extent` give the launcher's `u64` of a parameter and of an array extent;
    /// `__gpu_grid` and `__gpu_block` are the launch's dimensions.
    pub fn to_rust(
        &self,
        sat: &TokenStream,
        value: &dyn Fn(VarId) -> TokenStream,
        extent: &dyn Fn(SliceId, usize) -> TokenStream,
    ) -> TokenStream {
        let r = |s: &Sym| s.to_rust(sat, value, extent);
        let axis = |a: &Axis| match a {
            Axis::X => 0usize,
            Axis::Y => 1,
            Axis::Z => 2,
        };
        match self {
            Sym::Const(x) => {
                let x = *x as u64;
                quote!(#x)
            }
            Sym::Value(v) => value(*v),
            Sym::Extent(s, k) => extent(*s, *k),
            Sym::BlockDim(a) => {
                let a = axis(a);
                quote!(__gpu_block[#a])
            }
            Sym::GridDim(a) => {
                let a = axis(a);
                quote!(__gpu_grid[#a])
            }
            Sym::Add(a, b) => {
                let (a, b) = (r(a), r(b));
                quote!(#sat::sat_add(#a, #b))
            }
            Sym::Mul(a, b) => {
                let (a, b) = (r(a), r(b));
                quote!(#sat::sat_mul(#a, #b))
            }
            Sym::Div(a, d) => {
                let (a, d) = (r(a), *d as u64);
                quote!(#sat::sat_div(#a, #d))
            }
            Sym::Shr(a, d) => {
                let a = r(a);
                quote!(#sat::sat_shr(#a, #d))
            }
            Sym::Min(a, b) => {
                let (a, b) = (r(a), r(b));
                quote!(::core::cmp::min(#a, #b))
            }
            Sym::Dec(a) => {
                let a = r(a);
                quote!(#sat::sat_dec(#a))
            }
            Sym::NoWrap(check, value) => {
                let (c, v) = (r(check), r(value));
                quote!(#sat::sat_unless(#c, #v))
            }
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
        assert_eq!(Sym::dec(Sym::Const(0)), Sym::Const(0));
        assert_eq!(Sym::div(Sym::Const(9), 0), None);
        assert_eq!(Sym::shr(Sym::Const(9), 64), None);
        let e = Sym::Extent(0, 0);
        assert_eq!(Sym::mul(e.clone(), Sym::Const(0)), Some(Sym::Const(0)));
        assert_eq!(Sym::min(e.clone(), e.clone()), e);
        // Nested minimums keep the smallest constant once.
        let d = Sym::dec(Sym::BlockDim(Axis::X));
        let m = Sym::min(Sym::Const(255), Sym::min(Sym::Const(127), d.clone()));
        assert_eq!(m, Sym::Min(Box::new(Sym::Const(127)), Box::new(d.clone())));
        assert_eq!(m.largest(), 127);
        // A constant above every value of the other term goes.
        assert_eq!(Sym::min(Sym::Const(5000), d.clone()), d);
    }

    #[test]
    fn rust_uses_the_saturating_steps() {
        let s = Sym::add(
            Sym::mul(Sym::dec(Sym::Value(3)), Sym::Value(4)).unwrap(),
            Sym::dec(Sym::BlockDim(Axis::X)),
        )
        .unwrap();
        let sat = quote!(f);
        let r = s.to_rust(
            &sat,
            &|v| {
                let v = quote::format_ident!("v{}", v);
                quote!(#v)
            },
            &|_, _| quote!(e),
        );
        assert_eq!(
            r.to_string(),
            "f :: sat_add (f :: sat_mul (f :: sat_dec (v3) , v4) , f :: sat_dec (__gpu_block [0usize]))"
        );
    }
}
