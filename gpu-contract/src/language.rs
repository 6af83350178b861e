//! The kernel language's built-in functions: barriers, fences and warp functions
//! ([`INTRINSICS`]), and the math methods on numbers ([`MATH`]).
//!
//! Rule: each table row is everything both sides need. The translator reads a row to
//! check a call (name, argument kinds, result) and to write its CUDA C (`c`, a template
//! with `{0}`, `{1}`, ... for the arguments); the runtime reads the math rows to write the
//! prelude's overloads and tests that its `Float` trait has every method listed.

/// A barrier, fence or warp function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intrinsic {
    /// `sync_threads()`
    SyncThreads,
    /// `sync_threads_count(p)`
    SyncThreadsCount,
    /// `sync_threads_and(p)`
    SyncThreadsAnd,
    /// `sync_threads_or(p)`
    SyncThreadsOr,
    /// `threadfence()`
    ThreadFence,
    /// `threadfence_block()`
    ThreadFenceBlock,
    /// `threadfence_system()`
    ThreadFenceSystem,
    /// `lane_id()`
    LaneId,
    /// `warp_size()`
    WarpSize,
    /// `active_mask()`
    ActiveMask,
    /// `shfl_sync(mask, v, lane)`
    Shfl,
    /// `shfl_up_sync(mask, v, delta)`
    ShflUp,
    /// `shfl_down_sync(mask, v, delta)`
    ShflDown,
    /// `shfl_xor_sync(mask, v, lane_mask)`
    ShflXor,
    /// `ballot_sync(mask, p)`
    Ballot,
    /// `any_sync(mask, p)`
    Any,
    /// `all_sync(mask, p)`
    All,
    /// `eq_sync(mask, v)`
    Eq,
    /// `sync_warp(mask)`
    SyncWarp,
    /// `sync_grid()`: every thread of the grid (a cooperative launch).
    SyncGrid,
}

/// How an intrinsic's argument is typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// `u32` (masks, lanes, deltas).
    U32,
    /// `bool` (predicates).
    Bool,
    /// Any dtype, the same for every `Value` argument and a `Value` result.
    Value,
}

/// What an intrinsic returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetKind {
    /// Nothing: the call is a statement.
    Unit,
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `bool`
    Bool,
    /// The type of its `Value` arguments.
    Value,
}

/// One row of [`INTRINSICS`].
#[derive(Clone, Copy, Debug)]
pub struct IntrinsicSpec {
    /// Which intrinsic.
    pub intrinsic: Intrinsic,
    /// Its name in the kernel language (and of the runtime function).
    pub name: &'static str,
    /// Its arguments.
    pub args: &'static [ArgKind],
    /// Its result.
    pub ret: RetKind,
    /// Whether the threads of a block (or warp, or grid) wait for each other in it: the
    /// simulator then interleaves the block's threads.
    pub waits: bool,
    /// The CUDA C, with `{0}`, `{1}`, ... for the arguments.
    pub c: &'static str,
}

use ArgKind::{Bool, Value, U32};

/// Every barrier, fence and warp function of the language.
pub const INTRINSICS: &[IntrinsicSpec] = &[
    spec(
        Intrinsic::SyncThreads,
        "sync_threads",
        &[],
        RetKind::Unit,
        true,
        "__syncthreads()",
    ),
    spec(
        Intrinsic::SyncThreadsCount,
        "sync_threads_count",
        &[Bool],
        RetKind::I32,
        true,
        "__syncthreads_count({0})",
    ),
    spec(
        Intrinsic::SyncThreadsAnd,
        "sync_threads_and",
        &[Bool],
        RetKind::Bool,
        true,
        "(__syncthreads_and({0}) != 0)",
    ),
    spec(
        Intrinsic::SyncThreadsOr,
        "sync_threads_or",
        &[Bool],
        RetKind::Bool,
        true,
        "(__syncthreads_or({0}) != 0)",
    ),
    spec(
        Intrinsic::ThreadFence,
        "threadfence",
        &[],
        RetKind::Unit,
        false,
        "__threadfence()",
    ),
    spec(
        Intrinsic::ThreadFenceBlock,
        "threadfence_block",
        &[],
        RetKind::Unit,
        false,
        "__threadfence_block()",
    ),
    spec(
        Intrinsic::ThreadFenceSystem,
        "threadfence_system",
        &[],
        RetKind::Unit,
        false,
        "__threadfence_system()",
    ),
    spec(
        Intrinsic::LaneId,
        "lane_id",
        &[],
        RetKind::U32,
        false,
        "gt_lane_id()",
    ),
    spec(
        Intrinsic::WarpSize,
        "warp_size",
        &[],
        RetKind::U32,
        false,
        "32u",
    ),
    spec(
        Intrinsic::ActiveMask,
        "active_mask",
        &[],
        RetKind::U32,
        true,
        "__activemask()",
    ),
    spec(
        Intrinsic::Shfl,
        "shfl_sync",
        &[U32, Value, U32],
        RetKind::Value,
        true,
        "gt_shfl({0}, {1}, {2})",
    ),
    spec(
        Intrinsic::ShflUp,
        "shfl_up_sync",
        &[U32, Value, U32],
        RetKind::Value,
        true,
        "gt_shfl_up({0}, {1}, {2})",
    ),
    spec(
        Intrinsic::ShflDown,
        "shfl_down_sync",
        &[U32, Value, U32],
        RetKind::Value,
        true,
        "gt_shfl_down({0}, {1}, {2})",
    ),
    spec(
        Intrinsic::ShflXor,
        "shfl_xor_sync",
        &[U32, Value, U32],
        RetKind::Value,
        true,
        "gt_shfl_xor({0}, {1}, {2})",
    ),
    spec(
        Intrinsic::Ballot,
        "ballot_sync",
        &[U32, Bool],
        RetKind::U32,
        true,
        "__ballot_sync({0}, {1})",
    ),
    spec(
        Intrinsic::Any,
        "any_sync",
        &[U32, Bool],
        RetKind::Bool,
        true,
        "(__any_sync({0}, {1}) != 0)",
    ),
    spec(
        Intrinsic::All,
        "all_sync",
        &[U32, Bool],
        RetKind::Bool,
        true,
        "(__all_sync({0}, {1}) != 0)",
    ),
    spec(
        Intrinsic::Eq,
        "eq_sync",
        &[U32, Value],
        RetKind::Bool,
        true,
        "gt_eq_sync({0}, {1})",
    ),
    spec(
        Intrinsic::SyncWarp,
        "sync_warp",
        &[U32],
        RetKind::Unit,
        true,
        "__syncwarp({0})",
    ),
    spec(
        Intrinsic::SyncGrid,
        "sync_grid",
        &[],
        RetKind::Unit,
        true,
        "gt_sync_grid()",
    ),
];

const fn spec(
    intrinsic: Intrinsic,
    name: &'static str,
    args: &'static [ArgKind],
    ret: RetKind,
    waits: bool,
    c: &'static str,
) -> IntrinsicSpec {
    IntrinsicSpec {
        intrinsic,
        name,
        args,
        ret,
        waits,
        c,
    }
}

/// The intrinsic called `name`.
pub fn intrinsic(name: &str) -> Option<&'static IntrinsicSpec> {
    INTRINSICS.iter().find(|s| s.name == name)
}

/// The row of `which`.
pub fn intrinsic_spec(which: Intrinsic) -> &'static IntrinsicSpec {
    match INTRINSICS.iter().find(|s| s.intrinsic == which) {
        Some(s) => s,
        // Every variant has a row: `every_intrinsic_has_a_row` tests it.
        None => &INTRINSICS[0],
    }
}

/// Which numbers a math method applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathDomain {
    /// Floats only (`sqrt`, `sin`, ...).
    Float,
    /// Floats and signed integers (`abs`).
    Signed,
    /// Every number (`min`, `max`).
    Number,
    /// Integers only (`wrapping_add`, `rotate_left`).
    Int,
    /// Unsigned integers only (`is_power_of_two`).
    Unsigned,
    /// Complex numbers only ([`COMPLEX_MATH`]: `conj`, `norm`, `exp`, ...).
    Complex,
}

/// How a math method's arguments after the receiver are typed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathArgs {
    /// None: `x.sqrt()`.
    Unary,
    /// One of the receiver's type: `x.atan2(y)`.
    Binary,
    /// One `i32`: `x.powi(n)`.
    IntExponent,
    /// Two of the receiver's type: `x.mul_add(a, b)`.
    Ternary,
    /// One `u32`: `x.rotate_left(n)`.
    Amount,
    /// One of the type of a complex receiver's parts: `z.powf(2.5)`, `z.scale(t)`.
    Part,
}

/// The type of a math method's result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathResult {
    /// The receiver's type: `x.sqrt()`.
    Same,
    /// `bool`: `x.is_nan()`.
    Bool,
    /// `u32`: `n.count_ones()`.
    U32,
    /// The unsigned integer of the receiver's width: `a.abs_diff(b)` of two `i32` is a `u32`.
    UnsignedTwin,
}

/// How the GPU's result relates to the host's, for the semantics contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accuracy {
    /// The same bits as Rust on the host (IEEE correctly rounded, or exact).
    Exact,
    /// CUDA's documented bound, in units in the last place, for f32 and for f64; the host's
    /// libm has its own error, so the two may differ by up to the sum.
    Ulp {
        /// CUDA's maximum error for the `f32` function.
        f32: u32,
        /// CUDA's maximum error for the `f64` function.
        f64: u32,
    },
    /// A complex function made, as num-complex makes it, of real functions that are each
    /// [`Accuracy::Exact`] or within their [`Accuracy::Ulp`] bounds; the
    /// composition can amplify a part's difference (`ln` near `|z| = 1`).
    Composed,
}

/// One row of [`MATH`].
#[derive(Clone, Copy, Debug)]
pub struct MathSpec {
    /// The method's name (and `gt_<name>` in the prelude).
    pub name: &'static str,
    /// Its arguments after the receiver.
    pub args: MathArgs,
    /// Which numbers it applies to.
    pub domain: MathDomain,
    /// CUDA's `float` function, or `""` when the prelude defines it by hand.
    pub f32_c: &'static str,
    /// CUDA's `double` function, or `""`.
    pub f64_c: &'static str,
    /// How the GPU's result compares with the host's.
    pub accuracy: Accuracy,
    /// The result's type.
    pub result: MathResult,
}

/// A method whose result is not of the receiver's type: `result` instead.
const fn math_to(spec: MathSpec, result: MathResult) -> MathSpec {
    MathSpec { result, ..spec }
}

const fn math(
    name: &'static str,
    args: MathArgs,
    domain: MathDomain,
    f32_c: &'static str,
    f64_c: &'static str,
    accuracy: Accuracy,
) -> MathSpec {
    MathSpec {
        name,
        args,
        domain,
        f32_c,
        f64_c,
        accuracy,
        result: MathResult::Same,
    }
}

const fn ulp(f32: u32, f64: u32) -> Accuracy {
    Accuracy::Ulp { f32, f64 }
}

use Accuracy::{Composed, Exact};
use MathArgs::{Amount, Binary, IntExponent, Ternary, Unary};

mod fits;
pub use fits::{checked_fits, try_fits, CHECKED_FITS, TRY_FITS};
use MathDomain::{Float as F, Int, Number, Signed, Unsigned};

/// Every math method of the language. The ulp figures are CUDA's (CUDA C Programming
/// Guide, "Mathematical Functions", for the default `-prec-div=true -prec-sqrt=true` and
/// no `--use_fast_math`); `powi` is computed by the host's algorithm on both sides.
pub const MATH: &[MathSpec] = &[
    math("sqrt", Unary, F, "sqrtf", "sqrt", Exact),
    math("rsqrt", Unary, F, "", "", Exact),
    math("cbrt", Unary, F, "cbrtf", "cbrt", ulp(1, 1)),
    math("exp", Unary, F, "expf", "exp", ulp(2, 1)),
    math("exp2", Unary, F, "exp2f", "exp2", ulp(2, 1)),
    math("ln", Unary, F, "logf", "log", ulp(1, 1)),
    math("log2", Unary, F, "log2f", "log2", ulp(1, 1)),
    math("log10", Unary, F, "log10f", "log10", ulp(2, 1)),
    math("sin", Unary, F, "sinf", "sin", ulp(2, 2)),
    math("cos", Unary, F, "cosf", "cos", ulp(2, 2)),
    math("tan", Unary, F, "tanf", "tan", ulp(4, 2)),
    math("asin", Unary, F, "asinf", "asin", ulp(2, 2)),
    math("acos", Unary, F, "acosf", "acos", ulp(2, 2)),
    math("atan", Unary, F, "atanf", "atan", ulp(2, 2)),
    math("sinh", Unary, F, "sinhf", "sinh", ulp(3, 2)),
    math("cosh", Unary, F, "coshf", "cosh", ulp(2, 1)),
    math("tanh", Unary, F, "tanhf", "tanh", ulp(2, 1)),
    math("floor", Unary, F, "floorf", "floor", Exact),
    math("ceil", Unary, F, "ceilf", "ceil", Exact),
    math("round", Unary, F, "roundf", "round", Exact),
    math("trunc", Unary, F, "truncf", "trunc", Exact),
    math("recip", Unary, F, "", "", Exact),
    math("atan2", Binary, F, "atan2f", "atan2", ulp(3, 2)),
    math("powf", Binary, F, "powf", "pow", ulp(4, 2)),
    math("hypot", Binary, F, "hypotf", "hypot", ulp(3, 2)),
    math("copysign", Binary, F, "copysignf", "copysign", Exact),
    math("powi", IntExponent, F, "", "", Exact),
    math("mul_add", Ternary, F, "fmaf", "fma", Exact),
    math("abs", Unary, Signed, "fabsf", "fabs", Exact),
    math("min", Binary, Number, "fminf", "fmin", Exact),
    math("max", Binary, Number, "fmaxf", "fmax", Exact),
    // Integer methods, as Rust defines them: wrapping, and rotating by the amount modulo
    // the width.
    math("wrapping_add", Binary, Int, "", "", Exact),
    math("wrapping_sub", Binary, Int, "", "", Exact),
    math("wrapping_mul", Binary, Int, "", "", Exact),
    math("rotate_left", Amount, Int, "", "", Exact),
    math("rotate_right", Amount, Int, "", "", Exact),
    // Float methods the prelude computes as Rust's `core` does (the same operations in the
    // same order, so the same bits).
    math("signum", Unary, F, "", "", Exact),
    math("fract", Unary, F, "", "", Exact),
    math("to_radians", Unary, F, "", "", Exact),
    math("to_degrees", Unary, F, "", "", Exact),
    // (On integers too: there, as `%` and `/`, a zero divisor and `MIN` by -1 fault.)
    math("rem_euclid", Binary, Number, "", "", Exact),
    math("div_euclid", Binary, Number, "", "", Exact),
    // CUDA's functions where Rust calls the platform's libm (or composes its own).
    math("exp_m1", Unary, F, "expm1f", "expm1", ulp(1, 1)),
    math("ln_1p", Unary, F, "log1pf", "log1p", ulp(1, 1)),
    math("asinh", Unary, F, "asinhf", "asinh", ulp(3, 3)),
    math("acosh", Unary, F, "acoshf", "acosh", ulp(4, 3)),
    math("atanh", Unary, F, "atanhf", "atanh", ulp(3, 2)),
    // Classification, by the bits.
    math_to(math("is_nan", Unary, F, "", "", Exact), MathResult::Bool),
    math_to(math("is_finite", Unary, F, "", "", Exact), MathResult::Bool),
    math_to(
        math("is_infinite", Unary, F, "", "", Exact),
        MathResult::Bool,
    ),
    math_to(math("is_normal", Unary, F, "", "", Exact), MathResult::Bool),
    math_to(
        math("is_subnormal", Unary, F, "", "", Exact),
        MathResult::Bool,
    ),
    math_to(
        math("is_sign_positive", Unary, F, "", "", Exact),
        MathResult::Bool,
    ),
    math_to(
        math("is_sign_negative", Unary, F, "", "", Exact),
        MathResult::Bool,
    ),
    // Integer methods that never fault.
    math("saturating_add", Binary, Int, "", "", Exact),
    math("saturating_sub", Binary, Int, "", "", Exact),
    math("saturating_mul", Binary, Int, "", "", Exact),
    math("swap_bytes", Unary, Int, "", "", Exact),
    math_to(
        math("abs_diff", Binary, Int, "", "", Exact),
        MathResult::UnsignedTwin,
    ),
    // Integer power by squaring, Rust's algorithm: an overflowing step faults as `*` does
    // where overflow is checked, and wraps where it is not.
    math("pow", Amount, Int, "", "", Exact),
    math("reverse_bits", Unary, Int, "", "", Exact),
    math_to(
        math("count_ones", Unary, Int, "", "", Exact),
        MathResult::U32,
    ),
    math_to(
        math("count_zeros", Unary, Int, "", "", Exact),
        MathResult::U32,
    ),
    math_to(
        math("leading_zeros", Unary, Int, "", "", Exact),
        MathResult::U32,
    ),
    math_to(
        math("trailing_zeros", Unary, Int, "", "", Exact),
        MathResult::U32,
    ),
    math_to(
        math("is_power_of_two", Unary, Unsigned, "", "", Exact),
        MathResult::Bool,
    ),
];

/// The math method called `name`.
pub fn math_fn(name: &str) -> Option<&'static MathSpec> {
    MATH.iter().find(|m| m.name == name)
}

/// What a method of a complex number gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComplexResult {
    /// A complex number of the receiver's type.
    Complex,
    /// One of the type of its parts: `z.norm()` is an `f32` for a `Complex32`.
    Part,
}

/// One row of [`COMPLEX_MATH`].
#[derive(Clone, Copy, Debug)]
pub struct ComplexMethod {
    /// The method: its name is num-complex's, its C function the prelude's `gt_<name>`
    /// overload for `gt_c32` and `gt_c64` (in `complex.cuh`); `accuracy` is the worst of
    /// the real functions it is made of.
    pub spec: MathSpec,
    /// Its result.
    pub result: ComplexResult,
}

const fn complex(
    name: &'static str,
    args: MathArgs,
    result: ComplexResult,
    accuracy: Accuracy,
) -> ComplexMethod {
    ComplexMethod {
        spec: math(name, args, MathDomain::Complex, "", "", accuracy),
        result,
    }
}

/// The methods of `Complex32` and `Complex64` a kernel may call, with num-complex's
/// formulas: `re` and `im` are its fields (read only, as Numba's `.real` and `.imag`).
pub const COMPLEX_MATH: &[ComplexMethod] = &[
    complex("re", Unary, ComplexResult::Part, Exact),
    complex("im", Unary, ComplexResult::Part, Exact),
    complex("conj", Unary, ComplexResult::Complex, Exact),
    complex("norm_sqr", Unary, ComplexResult::Part, Exact),
    complex("inv", Unary, ComplexResult::Complex, Exact),
    complex("scale", MathArgs::Part, ComplexResult::Complex, Exact),
    complex("unscale", MathArgs::Part, ComplexResult::Complex, Exact),
    complex("l1_norm", Unary, ComplexResult::Part, Exact),
    // `hypot`, `atan2`, `exp`/`cos`/`sin`, `ln`, `sqrt`, `powf` of the parts.
    complex("norm", Unary, ComplexResult::Part, ulp(3, 2)),
    complex("arg", Unary, ComplexResult::Part, ulp(3, 2)),
    complex("exp", Unary, ComplexResult::Complex, Composed),
    complex("ln", Unary, ComplexResult::Complex, Composed),
    complex("sqrt", Unary, ComplexResult::Complex, Composed),
    complex("powf", MathArgs::Part, ComplexResult::Complex, Composed),
    complex("powc", Binary, ComplexResult::Complex, Composed),
];

/// The method of a complex number called `name`.
pub fn complex_fn(name: &str) -> Option<&'static ComplexMethod> {
    COMPLEX_MATH.iter().find(|m| m.spec.name == name)
}

/// The functions that make a complex number from real ones, as num-complex names them
/// (`Complex32::new(re, im)`, `Complex64::cis(theta)`, `Complex::from_polar(r, theta)`):
/// the name, how many real arguments, and the accuracy.
pub const COMPLEX_CONSTRUCTORS: &[MathSpec] = &[
    math("new", Binary, MathDomain::Float, "", "", Exact),
    math("cis", Unary, MathDomain::Float, "", "", ulp(2, 2)),
    math("from_polar", Binary, MathDomain::Float, "", "", Composed),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in INTRINSICS.iter().enumerate() {
            assert!(INTRINSICS[i + 1..].iter().all(|b| b.name != a.name));
            assert_eq!(intrinsic(a.name).map(|s| s.intrinsic), Some(a.intrinsic));
        }
        for (i, a) in MATH.iter().enumerate() {
            assert!(MATH[i + 1..].iter().all(|b| b.name != a.name));
        }
        for (i, a) in COMPLEX_MATH.iter().enumerate() {
            assert!(COMPLEX_MATH[i + 1..]
                .iter()
                .all(|b| b.spec.name != a.spec.name));
            assert_eq!(
                complex_fn(a.spec.name).map(|m| m.spec.name),
                Some(a.spec.name)
            );
            assert_eq!(a.spec.domain, MathDomain::Complex);
        }
    }

    #[test]
    fn every_intrinsic_has_a_row() {
        use Intrinsic::*;
        let all = [
            SyncThreads,
            SyncThreadsCount,
            SyncThreadsAnd,
            SyncThreadsOr,
            ThreadFence,
            ThreadFenceBlock,
            ThreadFenceSystem,
            LaneId,
            WarpSize,
            ActiveMask,
            Shfl,
            ShflUp,
            ShflDown,
            ShflXor,
            Ballot,
            Any,
            All,
            Eq,
            SyncWarp,
            SyncGrid,
        ];
        for i in all {
            assert_eq!(intrinsic_spec(i).intrinsic, i);
        }
        assert_eq!(all.len(), INTRINSICS.len());
    }

    #[test]
    fn templates_name_every_argument() {
        for s in INTRINSICS {
            for k in 0..s.args.len() {
                assert!(s.c.contains(&format!("{{{k}}}")), "{}", s.name);
            }
        }
    }
}
