//! A kernel's fast-path conditions, and their arithmetic.
//!
//! The translator bounds an index by an expression over launch-uniform values (scalar
//! parameters, array extents, block and grid dimensions) and records each condition
//! `bound < limit` as data ([`FastCondition`], postfix [`SymOp`]s) in the kernel's
//! definition; the runtime evaluates them on the host with the launch's own arguments,
//! once its dimensions are final, and runs the kernel's main entry only when every one
//! holds (its fully checked entry otherwise). A bound is valid only while no step of the
//! kernel's own arithmetic wraps, so it is evaluated with these saturating steps: a step
//! that would pass `u64::MAX` gives `u64::MAX`, every later step keeps it (only `min`, and
//! a product with 0, leave it, and both remain upper bounds), and `u64::MAX < extent` is
//! false for every extent.

/// `a + b`, saturated.
#[inline]
pub const fn sat_add(a: u64, b: u64) -> u64 {
    a.saturating_add(b)
}

/// `a * b`, saturated; 0 when either is 0.
#[inline]
pub const fn sat_mul(a: u64, b: u64) -> u64 {
    a.saturating_mul(b)
}

/// `a / c` for a constant `c > 0`; a saturated `a` stays saturated.
#[inline]
pub const fn sat_div(a: u64, c: u64) -> u64 {
    if a == u64::MAX {
        u64::MAX
    } else {
        a / c
    }
}

/// `a >> c` for a constant `c < 64`; a saturated `a` stays saturated.
#[inline]
pub const fn sat_shr(a: u64, c: u32) -> u64 {
    if a == u64::MAX {
        u64::MAX
    } else {
        a >> c
    }
}

/// `a - 1`, 0 for 0 (the bound of `x` from `x < a`); a saturated `a` stays saturated.
#[inline]
pub const fn sat_dec(a: u64) -> u64 {
    if a == u64::MAX {
        u64::MAX
    } else {
        a.saturating_sub(1)
    }
}

/// `value`, unless `check` (the bound of an expression that must not have wrapped)
/// saturated: then saturated.
#[inline]
pub const fn sat_unless(check: u64, value: u64) -> u64 {
    if check == u64::MAX {
        u64::MAX
    } else {
        value
    }
}

/// One step of a bound, in postfix order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymOp {
    /// Push a constant.
    Const(u64),
    /// Push the value of scalar parameter number `i` (an unsigned integer).
    Scalar(u16),
    /// Push extent `axis` of array parameter number `param`.
    Extent {
        /// The parameter.
        param: u16,
        /// The axis.
        axis: u8,
    },
    /// Push the value of the kernel's module constant number `i` (an unsigned integer,
    /// such as `TPB` in `shared_array_2d::<f32, TPB, TPB>()`).
    Constant(u16),
    /// Push `block_dim()` on an axis (0, 1, 2).
    BlockDim(u8),
    /// Push `grid_dim()` on an axis.
    GridDim(u8),
    /// Pop b, a; push [`sat_add`]`(a, b)`.
    Add,
    /// Pop b, a; push [`sat_mul`]`(a, b)`.
    Mul,
    /// Pop a; push [`sat_div`]`(a, c)`.
    Div(u64),
    /// Pop a; push [`sat_shr`]`(a, c)`.
    Shr(u32),
    /// Pop b, a; push `min(a, b)`.
    Min,
    /// Pop a; push [`sat_dec`]`(a)`.
    Dec,
    /// Pop value, check; push [`sat_unless`]`(check, value)`.
    NoWrap,
}

/// A condition of a kernel's fast path: `bound < limit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FastCondition {
    /// The index's upper bound.
    pub bound: &'static [SymOp],
    /// The extent it must stay below.
    pub limit: &'static [SymOp],
}

/// The most values a bound's evaluation holds at once; the translator emits no deeper
/// bound.
pub const STACK: usize = 16;

/// What a bound reads from the launch.
pub trait LaunchValues {
    /// Scalar parameter number `param`, as `u64`.
    fn scalar(&self, param: u16) -> u64;
    /// Extent `axis` of array parameter number `param`.
    fn extent(&self, param: u16, axis: u8) -> u64;
    /// The kernel's module constant number `i`, as `u64`.
    fn constant(&self, i: u16) -> u64;
    /// The launch's block dimensions.
    fn block(&self) -> [u64; 3];
    /// The launch's grid dimensions.
    fn grid(&self) -> [u64; 3];
}

/// The value of `ops`; saturated (`u64::MAX`) for a malformed program.
#[inline]
pub fn evaluate<V: LaunchValues + ?Sized>(ops: &[SymOp], v: &V) -> u64 {
    let mut stack = [0u64; STACK];
    let mut depth = 0usize;
    for op in ops {
        // Leaves push a value; operators pop their operands first. A malformed program
        // (too few operands, too deep) saturates.
        let value = match *op {
            SymOp::Const(c) => c,
            SymOp::Scalar(p) => v.scalar(p),
            SymOp::Extent { param, axis } => v.extent(param, axis),
            SymOp::Constant(i) => v.constant(i),
            SymOp::BlockDim(axis) => v.block()[usize::from(axis.min(2))],
            SymOp::GridDim(axis) => v.grid()[usize::from(axis.min(2))],
            SymOp::Add | SymOp::Mul | SymOp::Min | SymOp::NoWrap => {
                let Some(d) = depth.checked_sub(2) else {
                    return u64::MAX;
                };
                depth = d;
                let (a, b) = (stack[d], stack[d + 1]);
                match *op {
                    SymOp::Add => sat_add(a, b),
                    SymOp::Mul => sat_mul(a, b),
                    SymOp::Min => a.min(b),
                    _ => sat_unless(a, b),
                }
            }
            SymOp::Div(_) | SymOp::Shr(_) | SymOp::Dec => {
                let Some(d) = depth.checked_sub(1) else {
                    return u64::MAX;
                };
                depth = d;
                let a = stack[d];
                match *op {
                    SymOp::Div(0) => return u64::MAX,
                    SymOp::Div(c) => sat_div(a, c),
                    SymOp::Shr(c) if c >= 64 => return u64::MAX,
                    SymOp::Shr(c) => sat_shr(a, c),
                    _ => sat_dec(a),
                }
            }
        };
        let Some(slot) = stack.get_mut(depth) else {
            return u64::MAX;
        };
        *slot = value;
        depth += 1;
    }
    if depth == 1 {
        stack[0]
    } else {
        u64::MAX
    }
}

/// Whether every condition holds for the launch; a saturated bound or limit (a limit is
/// an extent, which never is `u64::MAX`) fails its condition.
#[inline]
pub fn holds<V: LaunchValues + ?Sized>(conditions: &[FastCondition], v: &V) -> bool {
    conditions
        .iter()
        .all(|c| less(evaluate(c.bound, v), evaluate(c.limit, v)))
}

/// One condition's test: `bound < limit`, false when either saturated.
#[inline]
pub const fn less(bound: u64, limit: u64) -> bool {
    bound != u64::MAX && limit != u64::MAX && bound < limit
}

/// The compiled form of a kernel's conditions (which the kernel attribute also emits):
/// straight-line code computing what [`holds`] computes from the data.
pub type CompiledConditions = fn(&dyn LaunchValues) -> bool;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturation_is_sticky() {
        let m = u64::MAX;
        assert_eq!(sat_add(m - 1, 2), m);
        assert_eq!(sat_mul(1 << 33, 1 << 31), m);
        assert_eq!(sat_mul(m, 0), 0);
        assert_eq!(sat_dec(m), m);
        assert_eq!(sat_div(m, 4), m);
        assert_eq!(sat_shr(m, 3), m);
        assert_eq!(sat_dec(0), 0);
        assert_eq!(sat_div(9, 4), 2);
        assert_eq!(sat_add(sat_dec(sat_mul(4096, 4096)), 1), 4096 * 4096);
        assert_eq!(sat_unless(m, 3), m);
        assert_eq!(sat_unless(m - 1, 3), 3);
    }

    struct Launch;
    impl LaunchValues for Launch {
        fn scalar(&self, p: u16) -> u64 {
            [4096, 0][usize::from(p)]
        }
        fn extent(&self, p: u16, _: u8) -> u64 {
            [16, 4096 * 4096][usize::from(p)]
        }
        fn constant(&self, i: u16) -> u64 {
            [32][usize::from(i)]
        }
        fn block(&self) -> [u64; 3] {
            [16, 16, 1]
        }
        fn grid(&self) -> [u64; 3] {
            [256, 256, 1]
        }
    }

    #[test]
    fn conditions_evaluate_postfix_and_saturation_fails_them() {
        use SymOp::*;
        // (m - 1) * m + (block.x - 1) < extent 1
        const BOUND: &[SymOp] = &[Scalar(0), Dec, Scalar(0), Mul, BlockDim(0), Dec, Add];
        const LIMIT: &[SymOp] = &[Extent { param: 1, axis: 0 }];
        assert_eq!(evaluate(BOUND, &Launch), 4095 * 4096 + 15);
        assert_eq!(evaluate(&[Constant(0), BlockDim(0), Mul], &Launch), 32 * 16);
        assert!(holds(
            &[FastCondition {
                bound: BOUND,
                limit: LIMIT
            }],
            &Launch
        ));
        // A bound that saturates fails, whatever the limit.
        const HUGE: &[SymOp] = &[Const(u64::MAX - 1), Const(2), Add];
        const ANY: &[SymOp] = &[Const(u64::MAX)];
        assert!(!holds(
            &[FastCondition {
                bound: HUGE,
                limit: ANY
            }],
            &Launch
        ));
        // Malformed programs saturate rather than panic.
        assert_eq!(evaluate(&[Add], &Launch), u64::MAX);
        assert_eq!(evaluate(&[Const(1), Const(2)], &Launch), u64::MAX);
        assert_eq!(evaluate(&[Const(8), Div(0)], &Launch), u64::MAX);
        assert_eq!(evaluate(&[Const(8), Shr(64)], &Launch), u64::MAX);
        // As deep as the stack holds, and one deeper.
        assert_eq!(evaluate(&[Const(1); STACK], &Launch), u64::MAX);
        assert_eq!(evaluate(&[Const(1); STACK + 1], &Launch), u64::MAX);
        let mut sum = vec![Const(1); STACK];
        sum.extend([Add; STACK - 1]);
        assert_eq!(evaluate(&sum, &Launch), STACK as u64);
    }
}
