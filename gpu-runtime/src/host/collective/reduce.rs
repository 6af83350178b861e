//! What the collectives reduce with: the operations ([`ReduceOp`]) and the dtypes they
//! reduce ([`Reducible`]), with NCCL's codes for both and the simulator's reduction of the
//! ranks' parts, in rank order.

use super::sealed;
use crate::backend::cuda::nccl;
use crate::dtype::Dtype;

/// How the elements of the ranks combine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum (integers wrap, as `wrapping_add`).
    Sum,
    /// The product (integers wrap, as `wrapping_mul`).
    Prod,
    /// The least (floats as `f32::min`: a NaN loses to a number).
    Min,
    /// The greatest (floats as `f32::max`).
    Max,
    /// The mean: floats sum each rank's value times `1 / ranks` (rounded to the type);
    /// integers divide the wrapping sum by the number of ranks, rounding toward zero.
    Avg,
}

impl ReduceOp {
    pub(super) fn nccl(self) -> i32 {
        match self {
            ReduceOp::Sum => nccl::op::SUM,
            ReduceOp::Prod => nccl::op::PROD,
            ReduceOp::Min => nccl::op::MIN,
            ReduceOp::Max => nccl::op::MAX,
            ReduceOp::Avg => nccl::op::AVG,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Min => "min",
            ReduceOp::Max => "max",
            ReduceOp::Avg => "avg",
        }
    }
}

/// A dtype the collectives can reduce: the integers of 8, 32 and 64 bits, `f16`, `bf16`,
/// `f32` and `f64` (NCCL's types). Every [`Element`](crate::Element) can be broadcast, gathered, sent and
/// received.
pub trait Reducible: Dtype + sealed::Sealed {
    #[doc(hidden)]
    /// NCCL's `ncclDataType_t`.
    const NCCL_TYPE: i32;
    #[doc(hidden)]
    /// The simulator's reduction of `parts` (one slice per rank, in rank order).
    fn combine(op: ReduceOp, parts: &[Vec<Self>]) -> Vec<Self>;
}

/// Fold the ranks' slices element by element, in rank order.
fn fold<T: Copy>(parts: &[Vec<T>], first: impl Fn(T) -> T, f: impl Fn(T, T) -> T) -> Vec<T> {
    let mut out: Vec<T> = parts[0].iter().map(|&x| first(x)).collect();
    for p in &parts[1..] {
        for (o, &x) in out.iter_mut().zip(p) {
            *o = f(*o, first(x));
        }
    }
    out
}

macro_rules! reducible_int {
    ($($t:ty => $nccl:ident, $wide:ty;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NCCL_TYPE: i32 = nccl::dtype::$nccl;
            fn combine(op: ReduceOp, parts: &[Vec<$t>]) -> Vec<$t> {
                let n = parts.len() as $wide;
                match op {
                    ReduceOp::Sum => fold(parts, |x| x, <$t>::wrapping_add),
                    ReduceOp::Prod => fold(parts, |x| x, <$t>::wrapping_mul),
                    ReduceOp::Min => fold(parts, |x| x, std::cmp::min),
                    ReduceOp::Max => fold(parts, |x| x, std::cmp::max),
                    ReduceOp::Avg => fold(parts, |x| x, <$t>::wrapping_add)
                        .into_iter()
                        .map(|s| ((s as $wide) / n) as $t)
                        .collect(),
                }
            }
        }
    )*};
}

reducible_int! {
    i8 => INT8, i128;
    u8 => UINT8, u128;
    i32 => INT32, i128;
    u32 => UINT32, u128;
    i64 => INT64, i128;
    u64 => UINT64, u128;
    isize => INT64, i128;
    usize => UINT64, u128;
}

macro_rules! reducible_float {
    ($($t:ty => $nccl:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NCCL_TYPE: i32 = nccl::dtype::$nccl;
            fn combine(op: ReduceOp, parts: &[Vec<$t>]) -> Vec<$t> {
                match op {
                    ReduceOp::Sum => fold(parts, |x| x, |a, b| a + b),
                    ReduceOp::Prod => fold(parts, |x| x, |a, b| a * b),
                    ReduceOp::Min => fold(parts, |x| x, <$t>::min),
                    ReduceOp::Max => fold(parts, |x| x, <$t>::max),
                    ReduceOp::Avg => {
                        let s = (1.0f64 / parts.len() as f64) as $t;
                        fold(parts, |x| x * s, |a, b| a + b)
                    }
                }
            }
        }
    )*};
}

reducible_float! {
    f32 => FLOAT32;
    f64 => FLOAT64;
}

macro_rules! reducible_half {
    ($($t:ty => $nccl:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Reducible for $t {
            const NCCL_TYPE: i32 = nccl::dtype::$nccl;
            // Each step is one operation of the type, correctly rounded (an f32 sum or
            // product of two of these values rounds to the same value).
            fn combine(op: ReduceOp, parts: &[Vec<$t>]) -> Vec<$t> {
                let via = |f: fn(f32, f32) -> f32| {
                    move |a: $t, b: $t| <$t>::from_f32(f(a.to_f32(), b.to_f32()))
                };
                match op {
                    ReduceOp::Sum => fold(parts, |x| x, via(|a, b| a + b)),
                    ReduceOp::Prod => fold(parts, |x| x, via(|a, b| a * b)),
                    ReduceOp::Min => fold(parts, |x| x, via(f32::min)),
                    ReduceOp::Max => fold(parts, |x| x, via(f32::max)),
                    ReduceOp::Avg => {
                        let s = <$t>::from_f32((1.0f64 / parts.len() as f64) as f32).to_f32();
                        fold(parts, |x| <$t>::from_f32(x.to_f32() * s), via(|a, b| a + b))
                    }
                }
            }
        }
    )*};
}

reducible_half! {
    half::f16 => FLOAT16;
    half::bf16 => BFLOAT16;
}
