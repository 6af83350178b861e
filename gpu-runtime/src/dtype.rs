//! Element types a kernel can take, and the bounds generic kernels are written against.
//!
//! A kernel's generic parameter must be bounded by [`Float`], [`Int`] or [`Num`]; the
//! attribute checks this and the launcher is generic over the same bound, so a
//! `vec_add::<f32>` launch is a monomorphised Rust call that selects the `float` CUDA
//! specialisation. The methods of these traits are the ones a kernel body may call on a
//! generic value; each maps to one CUDA device function.

use std::fmt;
use std::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Not, Rem, RemAssign, Shl, Shr, Sub, SubAssign,
};

pub use gpu_contract::{DtypeKind, ElemKind, StructLayout};

pub mod arith;
pub(crate) mod bytes;
#[cfg(feature = "complex")]
mod complex;

mod sealed {
    pub trait Sealed {}
}

/// What a [`DeviceArray`](crate::DeviceArray) can hold: a [`Dtype`], or a struct made with
/// [`#[gpu_struct]`](crate::gpu_struct).
///
/// # Safety
///
/// [`Element::ELEM`] must describe `Self` exactly: for a dtype, its kind; for a struct, the
/// layout rustc gave it ([`StructLayout`]: size, alignment, every field's offset and type),
/// whose fields cover every byte of `Self` (no padding), each field itself an `Element`;
/// and all-zero bytes must be a valid `Self` (as for every dtype).
/// Copies between host and device then move initialised bytes only, and the simulator
/// reads and writes a struct part by part. `#[gpu_struct]` implements it with rustc's own
/// numbers and asserts the absence of padding at compile time; do not implement it by hand.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel dtype or a `#[gpu_struct]`",
    note = "kernel dtypes are f32 f64 f16 bf16 i8 i16 i32 i64 u8 u16 u32 u64 usize isize bool, \
            Complex32 Complex64; put `#[gpu_struct]` on a struct of them to use it in kernels",
    note = "a `#[gpu_enum]` with data is a value in registers only: never an array element, a \
            struct field or a kernel parameter (store its parts as numbers)"
)]
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// What `Self` is, for the runtime.
    const ELEM: ElemKind;
}

/// The value of all-zero bytes: `0`, `false`, `+0.0`, a struct of them.
#[inline]
pub(crate) fn zeroed<T: Element>() -> T {
    // SAFETY: all-zero bytes are a valid `T` (`Element`'s contract).
    unsafe { std::mem::zeroed() }
}

/// A `#[gpu_struct]`: its layout, which the attribute makes from rustc's numbers.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is used in a kernel but is not a `#[gpu_struct]`",
    label = "not a `#[gpu_struct]`",
    note = "put `#[gpu_struct]` on its definition (fields of dtypes or other #[gpu_struct]s), \
            and import it where the kernel is: `use path::{Self};`"
)]
pub trait GpuStruct: Element {
    /// The layout.
    const LAYOUT: &'static StructLayout;
}

/// A type declared with `#[gpu_struct]` or `#[gpu_enum]`, whether the attribute accepted it
/// or refused it (said at its definition): what a kernel that names the type asks, so a
/// refused struct's error stands alone. Carries nothing; the attributes implement it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is used in a kernel but is not a `#[gpu_struct]`",
    label = "not a `#[gpu_struct]`",
    note = "put `#[gpu_struct]` on its definition (fields of dtypes or other #[gpu_struct]s), \
            and import it where the kernel is: `use path::{Self};`"
)]
pub trait GpuStructDeclared {}

/// A `#[gpu_enum]` with data: a type kernels hold only as values (locals, device-function
/// parameters and results), declared in C by its layout, which is
/// [`register_only`](StructLayout::register_only). It is no [`Element`]: its bytes never
/// cross between host and device.
#[doc(hidden)]
pub trait GpuRegisterValue {
    /// The C struct's fields: a tag and every variant's fields.
    const LAYOUT: &'static StructLayout;
}

/// A type that can live in a [`DeviceArray`](crate::DeviceArray) and cross into a kernel as
/// an element or a scalar, and be a generic kernel's `T`.
///
/// Sealed: the runtime must know each type's CUDA spelling and size.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel dtype",
    note = "kernel dtypes are f32 f64 f16 bf16 i8 i16 i32 i64 u8 u16 u32 u64 usize isize bool, \
            and Complex32 Complex64 (gpu-runtime's `complex` feature, on by default)"
)]
pub trait Dtype: sealed::Sealed + Element + Default + PartialEq + fmt::Debug {
    /// The runtime's name for this type.
    const KIND: DtypeKind;
    #[doc(hidden)]
    /// The bits of its parts, each zero-extended: `[bits, 0]` for a real type, `[re, im]`
    /// for a complex number.
    fn to_words(self) -> [u64; 2];
    #[doc(hidden)]
    /// The value with these parts (the low bytes of each word).
    fn from_words(words: [u64; 2]) -> Self;
}

/// A dtype of one part: every dtype but the complex numbers. What atomics and warp
/// functions move, and what a generic kernel's `T` is.
#[doc(hidden)]
pub trait Word: Dtype {
    /// The value's bits, zero-extended (for the simulator's shuffles and atomics).
    fn to_bits64(self) -> u64;
    /// The value with these bits (the low `size_of::<Self>()` bytes).
    fn from_bits64(bits: u64) -> Self;
}

/// Any number: the arithmetic every numeric dtype supports in a kernel.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `Num` dtype",
    label = "a `Num` dtype is required here",
    note = "`Num` dtypes are f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 usize isize"
)]
pub trait Num:
    Word
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + RemAssign
    + arith::Arith
    + arith::ArithAbs
{
    /// `0` of this type.
    fn zero() -> Self;
    /// `1` of this type.
    fn one() -> Self;
    /// `v as Self` (in CUDA C: a cast).
    fn from_f64(v: f64) -> Self;
    /// `v as Self` (in CUDA C: a cast).
    fn from_i32(v: i32) -> Self;
    /// `v as Self` (in CUDA C: a cast).
    fn from_usize(v: usize) -> Self;
    /// `self as f64` (in CUDA C: a cast).
    fn to_f64(self) -> f64;
}

/// Floating-point dtypes: `f32` and `f64`. Each method maps to CUDA's device function of
/// the matching precision (`sqrtf` for `f32`, `sqrt` for `f64`, ...).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `Float` dtype",
    label = "a `Float` dtype is required here",
    note = "`Float` dtypes are f32 and f64"
)]
pub trait Float: Num + Neg<Output = Self> + arith::ArithNeg + arith::ArithEuclid {
    /// Square root.
    fn sqrt(self) -> Self;
    /// `1 / sqrt(self)`.
    fn rsqrt(self) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// `e^self`.
    fn exp(self) -> Self;
    /// `2^self`.
    fn exp2(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Tangent.
    fn tan(self) -> Self;
    /// Arcsine.
    fn asin(self) -> Self;
    /// Arccosine.
    fn acos(self) -> Self;
    /// Arctangent.
    fn atan(self) -> Self;
    /// Four-quadrant arctangent of `self / other`.
    fn atan2(self, other: Self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// The smaller of two values, ignoring a NaN (as `fminf`).
    fn min(self, other: Self) -> Self;
    /// The larger of two values, ignoring a NaN (as `fmaxf`).
    fn max(self, other: Self) -> Self;
    /// `self^n`.
    fn powf(self, n: Self) -> Self;
    /// `self^n` for an integer `n`.
    fn powi(self, n: i32) -> Self;
    /// Round towards minus infinity.
    fn floor(self) -> Self;
    /// Round towards plus infinity.
    fn ceil(self) -> Self;
    /// Round half away from zero.
    fn round(self) -> Self;
    /// Round towards zero.
    fn trunc(self) -> Self;
    /// `self * a + b` with one rounding.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `sqrt(self^2 + other^2)` without undue overflow.
    fn hypot(self, other: Self) -> Self;
    /// `1 / self`.
    fn recip(self) -> Self;
    /// `self` with the sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
    /// `self` within `[lo, hi]` (NaN stays NaN); panics unless `lo <= hi`.
    fn clamp(self, lo: Self, hi: Self) -> Self;
    /// The sign: `1.0` or `-1.0` (of zeros too, by their sign), NaN for NaN.
    fn signum(self) -> Self;
    /// `self - self.trunc()`.
    fn fract(self) -> Self;
    /// Degrees to radians.
    fn to_radians(self) -> Self;
    /// Radians to degrees.
    fn to_degrees(self) -> Self;
    /// `e^self - 1`, accurate near 0.
    fn exp_m1(self) -> Self;
    /// `ln(1 + self)`, accurate near 0.
    fn ln_1p(self) -> Self;
    /// Inverse hyperbolic sine.
    fn asinh(self) -> Self;
    /// Inverse hyperbolic cosine.
    fn acosh(self) -> Self;
    /// Inverse hyperbolic tangent.
    fn atanh(self) -> Self;
    /// The least non-negative remainder of `self / rhs`.
    fn rem_euclid(self, rhs: Self) -> Self;
    /// The quotient of Euclidean division.
    fn div_euclid(self, rhs: Self) -> Self;
    /// Whether the value is NaN.
    fn is_nan(self) -> bool;
    /// Whether it is neither infinite nor NaN.
    fn is_finite(self) -> bool;
    /// Whether it is an infinity.
    fn is_infinite(self) -> bool;
    /// Whether it is neither zero, subnormal, infinite nor NaN.
    fn is_normal(self) -> bool;
    /// Whether it is subnormal.
    fn is_subnormal(self) -> bool;
    /// Whether its sign bit is clear (NaNs too).
    fn is_sign_positive(self) -> bool;
    /// Whether its sign bit is set (NaNs too).
    fn is_sign_negative(self) -> bool;
}

/// Integer dtypes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `Int` dtype",
    label = "an `Int` dtype is required here",
    note = "`Int` dtypes are i8 i16 i32 i64 u8 u16 u32 u64 usize isize"
)]
pub trait Int:
    Num
    + Ord
    + Not<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + BitAndAssign
    + BitOrAssign
    + BitXorAssign
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + arith::ArithShift
    + arith::ShiftAmount
    + arith::ArithEuclid
    + arith::ArithPow
{
    /// `self + other`, wrapping at the type's bounds.
    fn wrapping_add(self, other: Self) -> Self;
    /// `self - other`, wrapping.
    fn wrapping_sub(self, other: Self) -> Self;
    /// `self * other`, wrapping.
    fn wrapping_mul(self, other: Self) -> Self;
    /// The bits rotated left by `n` (modulo the width).
    fn rotate_left(self, n: u32) -> Self;
    /// The bits rotated right by `n` (modulo the width).
    fn rotate_right(self, n: u32) -> Self;
    /// `self + other`, clamped to the type's range.
    fn saturating_add(self, other: Self) -> Self;
    /// `self - other`, clamped.
    fn saturating_sub(self, other: Self) -> Self;
    /// `self * other`, clamped.
    fn saturating_mul(self, other: Self) -> Self;
    /// The bytes in reverse order.
    fn swap_bytes(self) -> Self;
    /// The bits in reverse order.
    fn reverse_bits(self) -> Self;
    /// How many bits are 1.
    fn count_ones(self) -> u32;
    /// How many bits are 0.
    fn count_zeros(self) -> u32;
    /// How many 0 bits precede the highest 1.
    fn leading_zeros(self) -> u32;
    /// How many 0 bits follow the lowest 1.
    fn trailing_zeros(self) -> u32;
    /// `self` to the power `exp`; overflow panics where overflow is checked, wraps where not.
    fn pow(self, exp: u32) -> Self;
    /// The least non-negative remainder of `self / rhs`; panics if `rhs` is 0.
    fn rem_euclid(self, rhs: Self) -> Self;
    /// The quotient of Euclidean division; panics if `rhs` is 0.
    fn div_euclid(self, rhs: Self) -> Self;
    /// `self + rhs`, or `None` where it overflows.
    fn checked_add(self, rhs: Self) -> Option<Self>;
    /// `self - rhs`, or `None` where it overflows.
    fn checked_sub(self, rhs: Self) -> Option<Self>;
    /// `self * rhs`, or `None` where it overflows.
    fn checked_mul(self, rhs: Self) -> Option<Self>;
    /// `self / rhs`, or `None` for a zero divisor or an overflow (`MIN / -1`).
    fn checked_div(self, rhs: Self) -> Option<Self>;
    /// `self % rhs`, or `None` for a zero divisor or an overflow (`MIN % -1`).
    fn checked_rem(self, rhs: Self) -> Option<Self>;
}

macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            #[inline]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
            #[inline]
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            #[inline]
            fn wrapping_mul(self, other: Self) -> Self {
                <$t>::wrapping_mul(self, other)
            }
            #[inline]
            fn rotate_left(self, n: u32) -> Self {
                <$t>::rotate_left(self, n)
            }
            #[inline]
            fn rotate_right(self, n: u32) -> Self {
                <$t>::rotate_right(self, n)
            }
            #[inline]
            fn saturating_add(self, other: Self) -> Self {
                <$t>::saturating_add(self, other)
            }
            #[inline]
            fn saturating_sub(self, other: Self) -> Self {
                <$t>::saturating_sub(self, other)
            }
            #[inline]
            fn saturating_mul(self, other: Self) -> Self {
                <$t>::saturating_mul(self, other)
            }
            #[inline]
            fn swap_bytes(self) -> Self {
                <$t>::swap_bytes(self)
            }
            #[inline]
            fn reverse_bits(self) -> Self {
                <$t>::reverse_bits(self)
            }
            #[inline]
            fn count_ones(self) -> u32 {
                <$t>::count_ones(self)
            }
            #[inline]
            fn count_zeros(self) -> u32 {
                <$t>::count_zeros(self)
            }
            #[inline]
            fn leading_zeros(self) -> u32 {
                <$t>::leading_zeros(self)
            }
            #[inline]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline]
            fn pow(self, exp: u32) -> Self {
                <$t>::pow(self, exp)
            }
            #[inline]
            fn rem_euclid(self, rhs: Self) -> Self {
                <$t>::rem_euclid(self, rhs)
            }
            #[inline]
            fn div_euclid(self, rhs: Self) -> Self {
                <$t>::div_euclid(self, rhs)
            }
            #[inline]
            fn checked_add(self, rhs: Self) -> Option<Self> {
                <$t>::checked_add(self, rhs)
            }
            #[inline]
            fn checked_sub(self, rhs: Self) -> Option<Self> {
                <$t>::checked_sub(self, rhs)
            }
            #[inline]
            fn checked_mul(self, rhs: Self) -> Option<Self> {
                <$t>::checked_mul(self, rhs)
            }
            #[inline]
            fn checked_div(self, rhs: Self) -> Option<Self> {
                <$t>::checked_div(self, rhs)
            }
            #[inline]
            fn checked_rem(self, rhs: Self) -> Option<Self> {
                <$t>::checked_rem(self, rhs)
            }
        }
    )*};
}

impl_int!(i32, i64, u32, u64, usize, isize, u8, i8, u16, i16);

macro_rules! impl_dtype {
    ($($t:ty => $kind:ident, $to:expr, $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        // The simulator reads and writes elements as atomics of their size, whose
        // alignment is their size: every dtype must be as aligned (64-bit hosts are).
        const _: () = assert!(::core::mem::align_of::<$t>() == ::core::mem::size_of::<$t>());
        // SAFETY: a primitive: one part, described by its kind.
        unsafe impl Element for $t {
            const ELEM: ElemKind = ElemKind::Dtype(DtypeKind::$kind);
        }
        impl Dtype for $t {
            const KIND: DtypeKind = DtypeKind::$kind;
            #[inline]
            fn to_words(self) -> [u64; 2] {
                [Word::to_bits64(self), 0]
            }
            #[inline]
            fn from_words(words: [u64; 2]) -> Self {
                Word::from_bits64(words[0])
            }
        }
        impl Word for $t {
            #[inline]
            fn to_bits64(self) -> u64 {
                let f: fn($t) -> u64 = $to;
                f(self)
            }
            #[inline]
            fn from_bits64(bits: u64) -> Self {
                let f: fn(u64) -> $t = $from;
                f(bits)
            }
        }
    )*};
}

impl_dtype! {
    bool => Bool, |v| v as u64, |b| b & 1 != 0;
    i32 => I32, |v| v as u32 as u64, |b| b as u32 as i32;
    i64 => I64, |v| v as u64, |b| b as i64;
    u32 => U32, |v| v as u64, |b| b as u32;
    u64 => U64, |v| v, |b| b;
    usize => Usize, |v| v as u64, |b| b as usize;
    isize => Isize, |v| v as u64, |b| b as isize;
    f32 => F32, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    f64 => F64, |v| v.to_bits(), |b| f64::from_bits(b);
    half::f16 => F16, |v| v.to_bits() as u64, |b| half::f16::from_bits(b as u16);
    half::bf16 => Bf16, |v| v.to_bits() as u64, |b| half::bf16::from_bits(b as u16);
    u8 => U8, |v| v as u64, |b| b as u8;
    i8 => I8, |v| v as u8 as u64, |b| b as u8 as i8;
    u16 => U16, |v| v as u64, |b| b as u16;
    i16 => I16, |v| v as u16 as u64, |b| b as u16 as i16;
}

macro_rules! impl_num {
    ($($t:ty),*) => {$(
        impl Num for $t {
            fn zero() -> Self { 0 as $t }
            fn one() -> Self { 1 as $t }
            fn from_f64(v: f64) -> Self { v as $t }
            fn from_i32(v: i32) -> Self { v as $t }
            fn from_usize(v: usize) -> Self { v as $t }
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}

impl_num!(i32, i64, u32, u64, usize, isize, f32, f64, u8, i8, u16, i16);

macro_rules! impl_float {
    ($($t:ident),*) => {$(
        impl Float for $t {
            fn sqrt(self) -> Self { $t::sqrt(self) }
            fn rsqrt(self) -> Self { 1.0 / $t::sqrt(self) }
            fn cbrt(self) -> Self { $t::cbrt(self) }
            fn exp(self) -> Self { $t::exp(self) }
            fn exp2(self) -> Self { $t::exp2(self) }
            fn ln(self) -> Self { $t::ln(self) }
            fn log2(self) -> Self { $t::log2(self) }
            fn log10(self) -> Self { $t::log10(self) }
            fn sin(self) -> Self { $t::sin(self) }
            fn cos(self) -> Self { $t::cos(self) }
            fn tan(self) -> Self { $t::tan(self) }
            fn asin(self) -> Self { $t::asin(self) }
            fn acos(self) -> Self { $t::acos(self) }
            fn atan(self) -> Self { $t::atan(self) }
            fn atan2(self, other: Self) -> Self { $t::atan2(self, other) }
            fn sinh(self) -> Self { $t::sinh(self) }
            fn cosh(self) -> Self { $t::cosh(self) }
            fn tanh(self) -> Self { $t::tanh(self) }
            fn abs(self) -> Self { $t::abs(self) }
            fn min(self, other: Self) -> Self { $t::min(self, other) }
            fn max(self, other: Self) -> Self { $t::max(self, other) }
            fn powf(self, n: Self) -> Self { $t::powf(self, n) }
            fn powi(self, n: i32) -> Self { $t::powi(self, n) }
            fn floor(self) -> Self { $t::floor(self) }
            fn ceil(self) -> Self { $t::ceil(self) }
            fn round(self) -> Self { $t::round(self) }
            fn trunc(self) -> Self { $t::trunc(self) }
            fn mul_add(self, a: Self, b: Self) -> Self { $t::mul_add(self, a, b) }
            fn hypot(self, other: Self) -> Self { $t::hypot(self, other) }
            fn recip(self) -> Self { $t::recip(self) }
            fn copysign(self, sign: Self) -> Self { $t::copysign(self, sign) }
            fn clamp(self, lo: Self, hi: Self) -> Self { $t::clamp(self, lo, hi) }
            fn signum(self) -> Self { $t::signum(self) }
            fn fract(self) -> Self { $t::fract(self) }
            fn to_radians(self) -> Self { $t::to_radians(self) }
            fn to_degrees(self) -> Self { $t::to_degrees(self) }
            fn exp_m1(self) -> Self { $t::exp_m1(self) }
            fn ln_1p(self) -> Self { $t::ln_1p(self) }
            fn asinh(self) -> Self { $t::asinh(self) }
            fn acosh(self) -> Self { $t::acosh(self) }
            fn atanh(self) -> Self { $t::atanh(self) }
            fn rem_euclid(self, rhs: Self) -> Self { $t::rem_euclid(self, rhs) }
            fn div_euclid(self, rhs: Self) -> Self { $t::div_euclid(self, rhs) }
            fn is_nan(self) -> bool { $t::is_nan(self) }
            fn is_finite(self) -> bool { $t::is_finite(self) }
            fn is_infinite(self) -> bool { $t::is_infinite(self) }
            fn is_normal(self) -> bool { $t::is_normal(self) }
            fn is_subnormal(self) -> bool { $t::is_subnormal(self) }
            fn is_sign_positive(self) -> bool { $t::is_sign_positive(self) }
            fn is_sign_negative(self) -> bool { $t::is_sign_negative(self) }
        }
    )*};
}

impl_float!(f32, f64);

/// `d` rounded toward zero to `f32`, its lowest bit set when that was inexact ("round to
/// odd"): rounding this to a format with at most 22 bits of precision rounds `d` exactly
/// once, as if directly.
fn f32_round_to_odd(d: f64) -> f32 {
    let f = d as f32;
    if f.is_nan() || f64::from(f) == d {
        return f;
    }
    // Toward zero: the nearest f32 may be beyond `d` (or infinite for a finite `d`).
    let mut bits = if f.is_infinite() {
        f32::MAX.copysign(f).to_bits()
    } else if f64::from(f).abs() > d.abs() {
        f.to_bits() - 1
    } else {
        f.to_bits()
    };
    if f64::from(f32::from_bits(bits)) != d {
        bits |= 1;
    }
    f32::from_bits(bits)
}

/// `f16::from_f64`, rounded once (`half`'s own may round through `f32` on CPUs with F16C,
/// which the GPU does not).
pub fn f16_from_f64(d: f64) -> half::f16 {
    half::f16::from_f32(f32_round_to_odd(d))
}

/// `bf16::from_f64`, rounded once.
pub fn bf16_from_f64(d: f64) -> half::bf16 {
    half::bf16::from_f32(f32_round_to_odd(d))
}

/// The once-rounded conversion from `f64` of each 16-bit float.
trait FromF64Once {
    fn from_f64_once(d: f64) -> Self;
}
impl FromF64Once for half::f16 {
    fn from_f64_once(d: f64) -> Self {
        f16_from_f64(d)
    }
}
impl FromF64Once for half::bf16 {
    fn from_f64_once(d: f64) -> Self {
        bf16_from_f64(d)
    }
}

// The 16-bit floats compute as CUDA's prelude does for them: in f32, rounded once to the
// 16-bit format (correctly rounded for + - * /, since f32 carries more than twice their
// precision), so GPU and simulator agree bit for bit; from f64, rounded once.
macro_rules! impl_half {
    ($($t:ty => $exp:expr),*) => {$(
        impl Num for $t {
            fn zero() -> Self { <$t>::from_f32(0.0) }
            fn one() -> Self { <$t>::from_f32(1.0) }
            fn from_f64(v: f64) -> Self { <$t as FromF64Once>::from_f64_once(v) }
            fn from_i32(v: i32) -> Self { <$t as FromF64Once>::from_f64_once(v as f64) }
            fn from_usize(v: usize) -> Self { <$t as FromF64Once>::from_f64_once(v as f64) }
            fn to_f64(self) -> f64 { <$t>::to_f64(self) }
        }
        impl Float for $t {
            fn sqrt(self) -> Self { Self::from_f32(self.to_f32().sqrt()) }
            fn rsqrt(self) -> Self { Self::from_f32(1.0 / self.to_f32().sqrt()) }
            fn cbrt(self) -> Self { Self::from_f32(self.to_f32().cbrt()) }
            fn exp(self) -> Self { Self::from_f32(self.to_f32().exp()) }
            fn exp2(self) -> Self { Self::from_f32(self.to_f32().exp2()) }
            fn ln(self) -> Self { Self::from_f32(self.to_f32().ln()) }
            fn log2(self) -> Self { Self::from_f32(self.to_f32().log2()) }
            fn log10(self) -> Self { Self::from_f32(self.to_f32().log10()) }
            fn sin(self) -> Self { Self::from_f32(self.to_f32().sin()) }
            fn cos(self) -> Self { Self::from_f32(self.to_f32().cos()) }
            fn tan(self) -> Self { Self::from_f32(self.to_f32().tan()) }
            fn asin(self) -> Self { Self::from_f32(self.to_f32().asin()) }
            fn acos(self) -> Self { Self::from_f32(self.to_f32().acos()) }
            fn atan(self) -> Self { Self::from_f32(self.to_f32().atan()) }
            fn atan2(self, o: Self) -> Self { Self::from_f32(self.to_f32().atan2(o.to_f32())) }
            fn sinh(self) -> Self { Self::from_f32(self.to_f32().sinh()) }
            fn cosh(self) -> Self { Self::from_f32(self.to_f32().cosh()) }
            fn tanh(self) -> Self { Self::from_f32(self.to_f32().tanh()) }
            fn abs(self) -> Self { Self::from_f32(self.to_f32().abs()) }
            fn min(self, o: Self) -> Self { Self::from_f32(self.to_f32().min(o.to_f32())) }
            fn max(self, o: Self) -> Self { Self::from_f32(self.to_f32().max(o.to_f32())) }
            fn powf(self, n: Self) -> Self { Self::from_f32(self.to_f32().powf(n.to_f32())) }
            fn powi(self, n: i32) -> Self { Self::from_f32(self.to_f32().powi(n)) }
            fn floor(self) -> Self { Self::from_f32(self.to_f32().floor()) }
            fn ceil(self) -> Self { Self::from_f32(self.to_f32().ceil()) }
            fn round(self) -> Self { Self::from_f32(self.to_f32().round()) }
            fn trunc(self) -> Self { Self::from_f32(self.to_f32().trunc()) }
            fn mul_add(self, a: Self, b: Self) -> Self { Self::from_f32(self.to_f32().mul_add(a.to_f32(), b.to_f32())) }
            fn hypot(self, o: Self) -> Self { Self::from_f32(self.to_f32().hypot(o.to_f32())) }
            fn recip(self) -> Self { Self::from_f32(1.0 / self.to_f32()) }
            fn copysign(self, s: Self) -> Self { Self::from_f32(self.to_f32().copysign(s.to_f32())) }
            fn clamp(self, lo: Self, hi: Self) -> Self { Self::from_f32(self.to_f32().clamp(lo.to_f32(), hi.to_f32())) }
            fn signum(self) -> Self { Self::from_f32(self.to_f32().signum()) }
            fn fract(self) -> Self { Self::from_f32(self.to_f32().fract()) }
            fn to_radians(self) -> Self { Self::from_f32(self.to_f32().to_radians()) }
            fn to_degrees(self) -> Self { Self::from_f32(self.to_f32().to_degrees()) }
            fn exp_m1(self) -> Self { Self::from_f32(self.to_f32().exp_m1()) }
            fn ln_1p(self) -> Self { Self::from_f32(self.to_f32().ln_1p()) }
            fn asinh(self) -> Self { Self::from_f32(self.to_f32().asinh()) }
            fn acosh(self) -> Self { Self::from_f32(self.to_f32().acosh()) }
            fn atanh(self) -> Self { Self::from_f32(self.to_f32().atanh()) }
            fn rem_euclid(self, r: Self) -> Self { Self::from_f32(self.to_f32().rem_euclid(r.to_f32())) }
            fn div_euclid(self, r: Self) -> Self { Self::from_f32(self.to_f32().div_euclid(r.to_f32())) }
            fn is_nan(self) -> bool { self.to_f32().is_nan() }
            fn is_finite(self) -> bool { self.to_f32().is_finite() }
            fn is_infinite(self) -> bool { self.to_f32().is_infinite() }
            // By the 16-bit format's own fields: a subnormal f16 is a normal f32.
            fn is_normal(self) -> bool { let e = self.to_bits() & $exp; e != 0 && e != $exp }
            fn is_subnormal(self) -> bool { self.to_bits() & $exp == 0 && self.to_bits() & !($exp | 0x8000) != 0 }
            fn is_sign_positive(self) -> bool { self.to_bits() & 0x8000 == 0 }
            fn is_sign_negative(self) -> bool { self.to_bits() & 0x8000 != 0 }
        }
    )*};
}

impl_half!(half::f16 => 0x7c00, half::bf16 => 0x7f80);
