//! The tests the `Option`-giving integer operations lower to: `checked_*`'s overflow tests
//! and `T::try_from(x)`'s range tests, each a prelude function (`gt_<name>`).

use super::MathArgs::{self, Binary, Unary};
use super::MathDomain::Int;
use super::{math, math_to, Accuracy::Exact, MathResult, MathSpec};

/// The overflow tests of `checked_add`, `checked_sub`, `checked_mul`, `checked_div` and
/// `checked_rem` (`gt_fits_add(a, b)`, ..): whether the operation's exact result fits the
/// type (and, for `/` and `%`, the divisor is not 0 and not -1 under `MIN`). Kernels reach
/// them through `checked_*`, whose `Option` is their flag and the operation's result.
pub const CHECKED_FITS: &[MathSpec] = &[
    test_of("fits_add", Binary),
    test_of("fits_sub", Binary),
    test_of("fits_mul", Binary),
    test_of("fits_div", Binary),
    test_of("fits_rem", Binary),
];

/// `T::try_from(x)`'s tests, one per integer target `T` (`try_fits_u8` is whether `x`'s
/// value is a `u8`): the receiver any integer.
pub const TRY_FITS: &[MathSpec] = &[
    test_of("try_fits_u8", Unary),
    test_of("try_fits_i8", Unary),
    test_of("try_fits_u16", Unary),
    test_of("try_fits_i16", Unary),
    test_of("try_fits_u32", Unary),
    test_of("try_fits_i32", Unary),
    test_of("try_fits_u64", Unary),
    test_of("try_fits_i64", Unary),
    test_of("try_fits_usize", Unary),
    test_of("try_fits_isize", Unary),
];

/// A test of integers the prelude defines (`gt_<name>`) taking `args`: exact, a `bool`.
const fn test_of(name: &'static str, args: MathArgs) -> MathSpec {
    math_to(math(name, args, Int, "", "", Exact), MathResult::Bool)
}

/// The test of `T::try_from(x)` for the integer type named `target`.
pub fn try_fits(target: &str) -> Option<&'static MathSpec> {
    TRY_FITS
        .iter()
        .find(|m| m.name.strip_prefix("try_fits_") == Some(target))
}

/// The overflow test of the checked method `name` (`checked_add` is `fits_add`).
pub fn checked_fits(name: &str) -> Option<&'static MathSpec> {
    let op = name.strip_prefix("checked_")?;
    CHECKED_FITS
        .iter()
        .find(|m| m.name.strip_prefix("fits_") == Some(op))
}
