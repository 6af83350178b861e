//! Compared sums: a comparison `i + 3 * s < n` of a sum over values that cannot change
//! bounds every sum it dominates term by term (`i + 2 * s`), provided the compared sum
//! did not wrap.

use super::bounds::{canon, type_max};
use crate::ir::sym::Sym;
use crate::ir::{BinOp, Expr, ExprKind, Kernel, Lit, RTy};

/// A comparison `sum < limit` that held where it is in scope: every sum of the same
/// immutable terms with no larger coefficients is below `limit` too, provided `sum` did
/// not wrap (its bound `own` did not saturate).
pub(super) struct SumGuard {
    pub sum: Linear,
    /// `limit - 1`.
    pub below: Sym,
    /// An upper bound of `sum` itself.
    pub own: Sym,
}

/// `c + k1 * t1 + k2 * t2 + ..` over terms that cannot change (immutable locals,
/// geometry, extents: their canonical text), each coefficient a literal.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Linear {
    constant: u128,
    terms: Vec<(String, u128)>,
}

impl Linear {
    fn add(mut self, other: Linear) -> Option<Linear> {
        self.constant = self.constant.checked_add(other.constant)?;
        for (t, k) in other.terms {
            match self.terms.iter_mut().find(|(u, _)| *u == t) {
                Some((_, j)) => *j = j.checked_add(k)?,
                None => self.terms.push((t, k)),
            }
        }
        Some(self)
    }

    fn scale(mut self, by: u128) -> Option<Linear> {
        self.constant = self.constant.checked_mul(by)?;
        for (_, k) in &mut self.terms {
            *k = k.checked_mul(by)?;
        }
        Some(self)
    }

    /// Whether every term's coefficient, and the constant, are at most `other`'s (the
    /// terms are unsigned, so the sum is at most `other`'s).
    pub(super) fn dominated_by(&self, other: &Linear) -> bool {
        self.constant <= other.constant
            && self
                .terms
                .iter()
                .all(|(t, k)| other.terms.iter().any(|(u, j)| u == t && k <= j))
    }
}

/// The linear form of an unsigned expression, when it has one.
pub(super) fn linear(k: &Kernel<RTy>, e: &Expr<RTy>) -> Option<Linear> {
    type_max(e.ty)?;
    let literal = |e: &Expr<RTy>| match e.kind {
        ExprKind::Lit(Lit::Int(v)) => u128::try_from(v).ok(),
        _ => None,
    };
    match &e.kind {
        ExprKind::Lit(Lit::Int(v)) => Some(Linear {
            constant: u128::try_from(*v).ok()?,
            terms: Vec::new(),
        }),
        ExprKind::Binary(BinOp::Add, l, r) => linear(k, l)?.add(linear(k, r)?),
        ExprKind::Binary(BinOp::Mul, l, r) => match (literal(l), literal(r)) {
            (Some(c), _) => linear(k, r)?.scale(c),
            (_, Some(c)) => linear(k, l)?.scale(c),
            _ => atom(k, e),
        },
        _ => atom(k, e),
    }
}

/// An expression that cannot change as one term of a linear form.
fn atom(k: &Kernel<RTy>, e: &Expr<RTy>) -> Option<Linear> {
    Some(Linear {
        constant: 0,
        terms: vec![(canon(k, e)?, 1)],
    })
}
