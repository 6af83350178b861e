//! Arithmetic as the simulator runs it: the operators of a kernel body, rewritten by the
//! attribute into these functions, so overflow is checked exactly when the kernel checks
//! it on the GPU (its `overflow_checks`, by default the defining crate's
//! `debug_assertions`), whatever profile compiled the body. Checked, an overflow is an
//! integer fault; unchecked, the result wraps. Division and remainder by zero and
//! `MIN / -1` fault either way, as they panic in Rust. Floats compute as Rust's
//! operators do.
//!
//! A fault inside a simulated launch stops the thread with an `IntegerFault`, which the
//! simulator (which marks its threads with `set_in_simulated_launch`) turns into
//! `GpuError::IntegerFault`; outside one (a `#[gpu_device]` function called on the host) it
//! is Rust's own panic. The traits are supertraits of the public dtype traits, so they live
//! with the dtypes.

use std::cell::Cell;

use gpu_contract::fault::IntOp;

/// The unwind payload of an integer fault in a simulated kernel's thread.
#[derive(Debug)]
pub(crate) struct IntegerFault(pub IntOp);

thread_local! {
    /// Whether this OS thread runs a simulated block's threads now.
    static IN_SIMULATED_LAUNCH: Cell<bool> = const { Cell::new(false) };
}

/// Set by the simulator while this OS thread runs a simulated block's threads.
#[inline]
pub(crate) fn set_in_simulated_launch(on: bool) {
    IN_SIMULATED_LAUNCH.with(|c| c.set(on));
}

/// An integer fault: the simulator's error inside a launch, Rust's panic outside.
#[cold]
#[inline(never)]
fn fault(op: IntOp) -> ! {
    if IN_SIMULATED_LAUNCH.with(Cell::get) {
        std::panic::resume_unwind(Box::new(IntegerFault(op)))
    }
    panic!("{}", op.message())
}

/// A number a kernel computes with. (Its methods are named so they never clash with a
/// user's: the traits are supertraits of the public dtype traits.)
#[doc(hidden)]
pub trait Arith: Copy {
    /// `a + b`.
    fn __add<const CHECKED: bool>(self, b: Self) -> Self;
    /// `a - b`.
    fn __sub<const CHECKED: bool>(self, b: Self) -> Self;
    /// `a * b`.
    fn __mul<const CHECKED: bool>(self, b: Self) -> Self;
    /// `a / b`.
    fn __div<const CHECKED: bool>(self, b: Self) -> Self;
    /// `a % b`.
    fn __rem<const CHECKED: bool>(self, b: Self) -> Self;
}

/// A real number, which has an absolute value of its own type.
#[doc(hidden)]
pub trait ArithAbs: Copy {
    /// `a.abs()` (an unsigned integer is its own).
    fn __abs<const CHECKED: bool>(self) -> Self;
}

/// A number that can be negated.
#[doc(hidden)]
pub trait ArithNeg: Copy {
    /// `-a`.
    fn __neg<const CHECKED: bool>(self) -> Self;
}

/// An integer that can be shifted.
#[doc(hidden)]
pub trait ArithShift: Copy {
    /// `a << b`.
    fn __shl<const CHECKED: bool>(self, b: u64) -> Self;
    /// `a >> b`.
    fn __shr<const CHECKED: bool>(self, b: u64) -> Self;
}

/// A number with Euclidean division (`rem_euclid`, `div_euclid`): an integer's faults as
/// `%` and `/` do, a float's is Rust's.
#[doc(hidden)]
pub trait ArithEuclid: Copy {
    /// `a.rem_euclid(b)`.
    fn __rem_euclid(self, b: Self) -> Self;
    /// `a.div_euclid(b)`.
    fn __div_euclid(self, b: Self) -> Self;
}

/// An integer with `pow`.
#[doc(hidden)]
pub trait ArithPow: Copy {
    /// `a.pow(e)`: an overflowing step faults as `*` does where overflow is checked.
    fn __pow<const CHECKED: bool>(self, e: u32) -> Self;
}

/// An integer shift amount, as the 64-bit pattern Rust compares with the width (a
/// negative amount is a huge one).
#[doc(hidden)]
pub trait ShiftAmount: Copy {
    /// The amount.
    fn __amount(self) -> u64;
}

macro_rules! ints {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn __add<const CHECKED: bool>(self, b: Self) -> Self {
                if CHECKED {
                    self.checked_add(b).unwrap_or_else(|| fault(IntOp::Add))
                } else {
                    self.wrapping_add(b)
                }
            }
            #[inline]
            fn __sub<const CHECKED: bool>(self, b: Self) -> Self {
                if CHECKED {
                    self.checked_sub(b).unwrap_or_else(|| fault(IntOp::Sub))
                } else {
                    self.wrapping_sub(b)
                }
            }
            #[inline]
            fn __mul<const CHECKED: bool>(self, b: Self) -> Self {
                if CHECKED {
                    self.checked_mul(b).unwrap_or_else(|| fault(IntOp::Mul))
                } else {
                    self.wrapping_mul(b)
                }
            }
            #[inline]
            fn __div<const CHECKED: bool>(self, b: Self) -> Self {
                if b == 0 {
                    fault(IntOp::DivByZero)
                }
                self.checked_div(b).unwrap_or_else(|| fault(IntOp::DivOverflow))
            }
            #[inline]
            fn __rem<const CHECKED: bool>(self, b: Self) -> Self {
                if b == 0 {
                    fault(IntOp::RemByZero)
                }
                self.checked_rem(b).unwrap_or_else(|| fault(IntOp::RemOverflow))
            }
        }
        impl ArithAbs for $t {
            #[inline]
            fn __abs<const CHECKED: bool>(self) -> Self {
                // Signed: `MIN.abs()` overflows; unsigned: `checked_abs` of a value that is
                // never negative is itself.
                #[allow(unused_comparisons)]
                let negative = self < 0;
                if !negative {
                    self
                } else if CHECKED {
                    // Rust's message for `MIN.abs()` is the negation's.
                    (0 as $t).checked_sub(self).unwrap_or_else(|| fault(IntOp::Neg))
                } else {
                    (0 as $t).wrapping_sub(self)
                }
            }
        }
        impl ArithShift for $t {
            #[inline]
            fn __shl<const CHECKED: bool>(self, b: u64) -> Self {
                if CHECKED && b >= u64::from(<$t>::BITS) {
                    fault(IntOp::Shl)
                }
                self.wrapping_shl(b as u32)
            }
            #[inline]
            fn __shr<const CHECKED: bool>(self, b: u64) -> Self {
                if CHECKED && b >= u64::from(<$t>::BITS) {
                    fault(IntOp::Shr)
                }
                self.wrapping_shr(b as u32)
            }
        }
        impl ArithEuclid for $t {
            #[inline]
            fn __rem_euclid(self, b: Self) -> Self {
                if b == 0 {
                    fault(IntOp::RemByZero)
                }
                self.checked_rem_euclid(b).unwrap_or_else(|| fault(IntOp::RemOverflow))
            }
            #[inline]
            fn __div_euclid(self, b: Self) -> Self {
                if b == 0 {
                    fault(IntOp::DivByZero)
                }
                self.checked_div_euclid(b).unwrap_or_else(|| fault(IntOp::DivOverflow))
            }
        }
        impl ArithPow for $t {
            #[inline]
            fn __pow<const CHECKED: bool>(self, e: u32) -> Self {
                // `checked_pow` fails exactly where a step of `pow`'s squaring overflows,
                // which is where `pow` panics (with the multiplication's message).
                if CHECKED {
                    self.checked_pow(e).unwrap_or_else(|| fault(IntOp::Mul))
                } else {
                    self.wrapping_pow(e)
                }
            }
        }
        impl ShiftAmount for $t {
            #[inline]
            fn __amount(self) -> u64 {
                self as u64
            }
        }
    )*};
}
ints!(i32, i64, isize, u32, u64, usize, u8, i8, u16, i16);

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl ArithNeg for $t {
            #[inline]
            fn __neg<const CHECKED: bool>(self) -> Self {
                if CHECKED {
                    self.checked_neg().unwrap_or_else(|| fault(IntOp::Neg))
                } else {
                    self.wrapping_neg()
                }
            }

        }
    )*};
}
signed!(i32, i64, isize, i8, i16);

/// Numbers whose operators have nothing to check: floats and complex numbers compute as
/// Rust's (and num-complex's) operators do.
macro_rules! unchecked_operators {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline]
            fn __add<const CHECKED: bool>(self, b: Self) -> Self { self + b }
            #[inline]
            fn __sub<const CHECKED: bool>(self, b: Self) -> Self { self - b }
            #[inline]
            fn __mul<const CHECKED: bool>(self, b: Self) -> Self { self * b }
            #[inline]
            fn __div<const CHECKED: bool>(self, b: Self) -> Self { self / b }
            #[inline]
            fn __rem<const CHECKED: bool>(self, b: Self) -> Self { self % b }
        }
        impl ArithNeg for $t {
            #[inline]
            fn __neg<const CHECKED: bool>(self) -> Self { -self }
        }
    )*};
}
unchecked_operators!(f32, f64, half::f16, half::bf16);
#[cfg(feature = "complex")]
unchecked_operators!(num_complex::Complex<f32>, num_complex::Complex<f64>);

macro_rules! float_abs {
    ($($t:ty),*) => {$(
        impl ArithAbs for $t {
            #[inline]
            fn __abs<const CHECKED: bool>(self) -> Self {
                // The sign bit cleared, as Rust's `abs` does (NaN and -0.0 included).
                <$t>::from_bits(self.to_bits() & !(1 << (8 * ::core::mem::size_of::<$t>() - 1)))
            }
        }
    )*};
}
float_abs!(f32, f64, half::f16, half::bf16);

macro_rules! float_euclid {
    ($($t:ty),*) => {$(
        impl ArithEuclid for $t {
            #[inline]
            fn __rem_euclid(self, b: Self) -> Self {
                self.rem_euclid(b)
            }
            #[inline]
            fn __div_euclid(self, b: Self) -> Self {
                self.div_euclid(b)
            }
        }
    )*};
}
float_euclid!(f32, f64);

/// The 16-bit floats compute in `f32` and round once, as their `Float` methods do.
macro_rules! half_euclid {
    ($($t:ty),*) => {$(
        impl ArithEuclid for $t {
            #[inline]
            fn __rem_euclid(self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32().rem_euclid(b.to_f32()))
            }
            #[inline]
            fn __div_euclid(self, b: Self) -> Self {
                <$t>::from_f32(self.to_f32().div_euclid(b.to_f32()))
            }
        }
    )*};
}
half_euclid!(half::f16, half::bf16);

/// `a + b` in a kernel.
#[inline]
pub fn add<const CHECKED: bool, T: Arith>(a: T, b: T) -> T {
    a.__add::<CHECKED>(b)
}

/// `a - b` in a kernel.
#[inline]
pub fn sub<const CHECKED: bool, T: Arith>(a: T, b: T) -> T {
    a.__sub::<CHECKED>(b)
}

/// `a * b` in a kernel.
#[inline]
pub fn mul<const CHECKED: bool, T: Arith>(a: T, b: T) -> T {
    a.__mul::<CHECKED>(b)
}

/// `a / b` in a kernel.
#[inline]
pub fn div<const CHECKED: bool, T: Arith>(a: T, b: T) -> T {
    a.__div::<CHECKED>(b)
}

/// `a % b` in a kernel.
#[inline]
pub fn rem<const CHECKED: bool, T: Arith>(a: T, b: T) -> T {
    a.__rem::<CHECKED>(b)
}

/// `-a` in a kernel.
#[inline]
pub fn neg<const CHECKED: bool, T: ArithNeg>(a: T) -> T {
    a.__neg::<CHECKED>()
}

/// `a.abs()` in a kernel.
#[inline]
pub fn abs<const CHECKED: bool, T: ArithAbs>(a: T) -> T {
    a.__abs::<CHECKED>()
}

/// The simulator's `x.abs()`, `x.pow(n)`, `x.rem_euclid(y)` and `x.div_euclid(y)`, called
/// as `(&x).abs()` with the traits of [`checked_methods`] or [`wrapping_methods`] in scope
/// (as the kernel checks overflow): on a number, the reference's trait method is found
/// before the number's own, and faults as the GPU does; on a `#[gpu_struct]` with a method
/// of that name, whose type implements none of the bounds, the struct's own is found, as
/// the translator finds it.
macro_rules! sim_methods {
    ($checked:literal) => {
        use super::{ArithAbs, ArithEuclid, ArithPow};

        /// `(&x).abs()`.
        pub trait SimAbs<T> {
            /// `x.abs()`, faulting on `MIN` where checked.
            fn abs(self) -> T;
        }
        impl<T: ArithAbs> SimAbs<T> for &T {
            #[inline]
            fn abs(self) -> T {
                self.__abs::<$checked>()
            }
        }

        /// `(&x).pow(n)`.
        pub trait SimPow<T> {
            /// `x.pow(n)`, faulting on overflow where checked.
            fn pow(self, n: u32) -> T;
        }
        impl<T: ArithPow> SimPow<T> for &T {
            #[inline]
            fn pow(self, n: u32) -> T {
                self.__pow::<$checked>(n)
            }
        }

        /// `(&x).rem_euclid(y)` and `(&x).div_euclid(y)`.
        pub trait SimEuclid<T> {
            /// `x.rem_euclid(y)`.
            fn rem_euclid(self, y: T) -> T;
            /// `x.div_euclid(y)`.
            fn div_euclid(self, y: T) -> T;
        }
        impl<T: ArithEuclid> SimEuclid<T> for &T {
            #[inline]
            fn rem_euclid(self, y: T) -> T {
                self.__rem_euclid(y)
            }
            #[inline]
            fn div_euclid(self, y: T) -> T {
                self.__div_euclid(y)
            }
        }
    };
}

/// The methods of a kernel that checks overflow (see `sim_methods!`).
#[doc(hidden)]
pub mod checked_methods {
    sim_methods!(true);
}

/// The methods of a kernel that does not check overflow (see `sim_methods!`).
#[doc(hidden)]
pub mod wrapping_methods {
    sim_methods!(false);
}

/// `a << b` in a kernel.
#[inline]
pub fn shl<const CHECKED: bool, T: ArithShift, R: ShiftAmount>(a: T, b: R) -> T {
    a.__shl::<CHECKED>(b.__amount())
}

/// `a >> b` in a kernel.
#[inline]
pub fn shr<const CHECKED: bool, T: ArithShift, R: ShiftAmount>(a: T, b: R) -> T {
    a.__shr::<CHECKED>(b.__amount())
}

/// The step of `(a..b).step_by(step)` in a kernel: 0 faults, as Rust panics.
#[inline]
pub fn step(step: usize) -> usize {
    if step == 0 {
        fault(IntOp::StepByZero)
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_follow_rust_checked_or_wrapping() {
        assert_eq!(add::<false, _>(i32::MAX, 1), i32::MIN);
        assert_eq!(mul::<false, _>(u32::MAX, 2), u32::MAX - 1);
        assert_eq!(shl::<false, _, _>(1u32, 33u32), 2);
        assert_eq!(shr::<false, _, _>(-8i32, 33i32), -4);
        assert_eq!(shl::<false, _, _>(1u32, -1i32), 1 << 31);
        assert_eq!(neg::<false, _>(i64::MIN), i64::MIN);
        let caught = |f: fn()| std::panic::catch_unwind(f).unwrap_err();
        let message = |p: Box<dyn std::any::Any + Send>| p.downcast_ref::<String>().cloned();
        assert_eq!(
            message(caught(|| {
                add::<true, _>(u64::MAX, 1u64);
            })),
            Some("attempt to add with overflow".to_owned())
        );
        assert_eq!(
            message(caught(|| {
                div::<false, _>(i32::MIN, -1);
            })),
            Some("attempt to divide with overflow".to_owned())
        );
        assert_eq!(
            message(caught(|| {
                rem::<false, _>(5u32, 0);
            })),
            Some("attempt to calculate the remainder with a divisor of zero".to_owned())
        );
        assert_eq!(
            message(caught(|| {
                shl::<true, _, _>(1i32, 32u32);
            })),
            Some("attempt to shift left with overflow".to_owned())
        );
    }

    #[test]
    fn floats_are_rust_operators() {
        assert_eq!(div::<true, _>(1.0f32, 0.0), f32::INFINITY);
        assert!(rem::<true, _>(1.0f64, 0.0).is_nan());
        assert_eq!(neg::<true, _>(0.0f32).to_bits(), (-0.0f32).to_bits());
    }
}
