//! The 8- and 16-bit integers (`u8`, `i8`, `u16`, `i16`): Rust's arithmetic, not C's
//! promoted `int`, on every operator, generic and concrete; casts to and from them
//! (float casts saturate); their faults where overflow is checked.

use gpu_runtime::prelude::*;
use gpu_runtime::Dtype;
use rand::distr::{Distribution, StandardUniform};
use rand::Rng;

use super::support::*;

/// Every operator of a `T: Int`, with overflow wrapping (a release build's arithmetic).
/// `s` is a shift amount below the width.
#[gpu_kernel(overflow_checks = false)]
pub fn narrow_wrapping<T: Int>(a: &[T], b: &[T], s: &[u32], out: &mut [T], flags: &mut [bool]) {
    let k = grid_1d();
    if k < a.len() {
        let (x, y) = (a[k], b[k]);
        let o = 12 * k;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x & y;
        out[o + 4] = x | y;
        out[o + 5] = x ^ y;
        out[o + 6] = !x;
        out[o + 7] = x << s[k];
        out[o + 8] = x >> s[k];
        out[o + 9] = x.wrapping_mul(y).rotate_left(s[k]);
        // A divisor above 1 never faults (no zero, no MIN / -1).
        out[o + 10] = if y > T::one() { x / y } else { x };
        out[o + 11] = if y > T::one() { x % y } else { y };
        // C compares the promoted `int`s: `~x == y` differs from Rust's `!x == y`.
        flags[3 * k] = !x == y;
        flags[3 * k + 1] = (x ^ y) < x;
        flags[3 * k + 2] = !(x & y) > x;
    }
}

/// Module constants of narrow types.
pub const MASK: u8 = 0xf3;
pub const DROP: i16 = -300;

/// Casts to and from `u8` and `i16`, from floats saturating; literals, constants (module
/// constants among them) and scalar parameters of the narrow types.
#[gpu_kernel]
pub fn narrow_casts(
    f: &[f32],
    d: &[f64],
    i: &[i32],
    key: u8,
    offset: i16,
    bytes: &mut [u8],
    shorts: &mut [i16],
) {
    let k = grid_1d();
    if k < f.len() {
        bytes[4 * k] = f[k] as u8;
        bytes[4 * k + 1] = d[k] as u8;
        bytes[4 * k + 2] = i[k] as u8 & MASK;
        bytes[4 * k + 3] = (i[k] as i8) as u8 ^ 200u8 ^ key;
        shorts[4 * k] = f[k] as i16;
        shorts[4 * k + 1] = (d[k] as i16).wrapping_add(DROP);
        shorts[4 * k + 2] = (i[k] as i16 / 3).wrapping_sub(offset);
        shorts[4 * k + 3] = (bytes[4 * k] as i16 - i16::MAX).max(i16::MIN + 7);
    }
}

/// `u8 + u8` that overflows, with overflow checked: an integer fault, as in Rust.
#[gpu_kernel(overflow_checks = true)]
pub fn narrow_checked(a: &[u8], b: &[i8], out: &mut [u8], signed_out: &mut [i8]) {
    let k = grid_1d();
    if k < a.len() {
        out[k] = a[k] + 1;
        signed_out[k] = b[k] - 1;
    }
}

/// Atomics on narrow integers (a compare-and-swap on the enclosing word on the GPU):
/// neighbouring elements of one word updated at once by many threads.
#[gpu_kernel]
pub fn narrow_atomics(v: &[u8], w: &[i16], sum: &mut [u8], hi: &mut [i16], bits: &mut [u16]) {
    let k = grid_1d();
    if k < v.len() {
        atomic_add(sum, k % 4, v[k]);
        atomic_max(hi, k % 3, w[k]);
        atomic_or(bits, k % 2, 1u16 << (k % 16) as u32);
        atomic_xor(sum, 4 + k % 2, v[k]);
    }
}

/// A random program's mismatch on the H200: `(-x).min(..)` on `i16` gave 0 for a
/// negative minimum (ptxas's `min.s16` on an unsigned-extended negation).
#[gpu_kernel(overflow_checks = true)]
pub fn min_of_negated_i16(a: &[i32], b: &[u32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        let m = (-(a[i] as i16)).min(83i16 % ((b[i] as i16) | 1i16));
        out[i] = m.min((-76i16) << ((-78i16).abs() & 15i16)) as i32;
        out[a.len() + i] = 0i8.wrapping_sub(a[i] as i8).max(-3i8) as i32;
    }
}

/// A random program's mismatch on the H200: `-x` of `i16::MIN` (wrapped, overflow checks
/// off) then compared; ptxas took `neg.s16`'s result as already sign-extended, so
/// `(-x).max(y)` was +32768 and narrowed to -32768.
#[gpu_kernel(overflow_checks = false)]
pub fn max_of_negated_min(a: &[f32], b: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i] as i16;
        let y = b[i] as i16;
        out[i] = ((x >> 15i16) + !(b[i] as i16)).min((-x).max((-32768i16).max(y))) as i32;
        out[a.len() + i] = 0i16.wrapping_sub(x).max(y) as i32;
        out[2 * a.len() + i] = (-(b[i] as i8)).max(y as i8) as i32;
        out[3 * a.len() + i] = (-x).abs().max(y) as i32;
    }
}

/// A random program's mismatch on the H200: `(x as u8) == 255u8` was true for x <= 0
/// (ptxas folded the 16-bit comparison into the saturating clamp's predicate). The same
/// for a clamp written out in Rust, and for every narrow type's saturated cast.
#[gpu_kernel]
pub fn saturated_cast_compared(a: &[f32], w: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        let n = a.len();
        out[i] = if (a[i] as u8) == 255u8 { 23 } else { w[i] };
        let c = if w[i] < 0 {
            0
        } else if w[i] > 255 {
            255
        } else {
            w[i]
        };
        out[n + i] = if (c as u8) == 255u8 { 23 } else { 7 };
        out[2 * n + i] = if (a[i] as i8) == 127i8 {
            23
        } else if (a[i] as i8) < -127i8 {
            5
        } else {
            7
        };
        out[3 * n + i] = if (a[i] as u16) >= 65535u16 {
            23
        } else {
            (a[i] as u16) as i32
        };
        out[4 * n + i] = if (a[i] as i16) <= -32768i16 {
            23
        } else {
            (a[i] as i16) as i32
        };
    }
}

/// `MIN.abs()` with overflow checked: Rust's "attempt to negate with overflow" on both
/// backends (the simulator once reported the subtraction it computes it with; found by the
/// random programs with narrow types).
#[gpu_kernel(overflow_checks = true)]
pub fn abs_of_min(a: &[i8], b: &[i32], o8: &mut [i8], o32: &mut [i32]) {
    let k = grid_1d();
    if k < a.len() {
        o8[k] = a[k].abs();
        o32[k] = b[k].abs();
    }
}

fn wrapping_reference<T: NarrowRef>(a: &[T], b: &[T], s: &[u32]) -> (Vec<T>, Vec<bool>) {
    let mut out = Vec::new();
    let mut flags = Vec::new();
    for k in 0..a.len() {
        let (x, y, s) = (a[k], b[k], s[k]);
        out.extend([
            x.w_add(y),
            x.w_sub(y),
            x.w_mul(y),
            x.and(y),
            x.or(y),
            x.xor(y),
            x.b_not(),
            x.b_shl(s),
            x.b_shr(s),
            x.w_mul(y).rotl(s),
            if y > T::ONE { x.w_div(y) } else { x },
            if y > T::ONE { x.w_rem(y) } else { y },
        ]);
        flags.extend([x.b_not() == y, x.xor(y) < x, x.and(y).b_not() > x]);
    }
    (out, flags)
}

/// The host's operations on a narrow integer, for the references.
trait NarrowRef: Copy + PartialEq + PartialOrd + Into<f64> + Dtype + gpu_runtime::Int {
    const ONE: Self;
    const BITS: u32;
    fn w_add(self, o: Self) -> Self;
    fn w_sub(self, o: Self) -> Self;
    fn w_mul(self, o: Self) -> Self;
    fn w_div(self, o: Self) -> Self;
    fn w_rem(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn b_not(self) -> Self;
    fn b_shl(self, s: u32) -> Self;
    fn b_shr(self, s: u32) -> Self;
    fn rotl(self, s: u32) -> Self;
}

macro_rules! narrow_ref {
    ($($t:ty),*) => {$(
        impl NarrowRef for $t {
            const ONE: Self = 1;
            const BITS: u32 = <$t>::BITS;
            fn w_add(self, o: Self) -> Self { self.wrapping_add(o) }
            fn w_sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            fn w_mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            fn w_div(self, o: Self) -> Self { self.wrapping_div(o) }
            fn w_rem(self, o: Self) -> Self { self.wrapping_rem(o) }
            fn and(self, o: Self) -> Self { self & o }
            fn or(self, o: Self) -> Self { self | o }
            fn xor(self, o: Self) -> Self { self ^ o }
            fn b_not(self) -> Self { !self }
            fn b_shl(self, s: u32) -> Self { self << s }
            fn b_shr(self, s: u32) -> Self { self >> s }
            fn rotl(self, s: u32) -> Self { self.rotate_left(s) }
        }
    )*};
}
narrow_ref!(u8, i8, u16, i16);

/// Fresh values with the edges mixed in: MIN, MAX, 0, -1 and 1.
fn values<T: NarrowRef>(r: &mut impl Rng, n: usize, edges: &[T]) -> Vec<T>
where
    StandardUniform: Distribution<T>,
{
    (0..n)
        .map(|_| {
            if r.random_range(0..4) == 0 {
                edges[r.random_range(0..edges.len())]
            } else {
                r.random()
            }
        })
        .collect()
}

fn one_type<T: NarrowRef>(
    dev: &Device,
    r: &mut impl Rng,
    out: &mut Outputs,
    names: [&'static str; 2],
    edges: &[T],
    poison: T,
) -> CaseResult<()>
where
    StandardUniform: Distribution<T>,
{
    let n = 3_001;
    let (a, b) = (values(r, n, edges), values(r, n, edges));
    let s: Vec<u32> = (0..n).map(|_| r.random_range(0..T::BITS)).collect();
    let (da, db, ds) = (dev.to_device(&a)?, dev.to_device(&b)?, dev.to_device(&s)?);
    let mut dout = poisoned(dev, 12 * n, poison)?;
    let mut dflags = poisoned(dev, 3 * n, false)?;
    launch!(narrow_wrapping[blocks(n, 128), 128](&da, &db, &ds, &mut dout, &mut dflags))?;
    let (want, want_flags) = wrapping_reference(&a, &b, &s);
    check(out, names[0], &dout.to_host()?, &want, 0.0)?;
    let flags: Vec<f64> = dflags.to_host()?.iter().map(|&f| f as u8 as f64).collect();
    let want_flags: Vec<f64> = want_flags.iter().map(|&f| f as u8 as f64).collect();
    check(out, names[1], &flags, &want_flags, 0.0)?;
    Ok(())
}

pub fn case_narrow(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    one_type::<u8>(
        dev,
        &mut r,
        &mut out,
        ["u8 ops", "u8 compares"],
        &[0, 1, 255, 128, 127],
        0xa5,
    )?;
    one_type::<i8>(
        dev,
        &mut r,
        &mut out,
        ["i8 ops", "i8 compares"],
        &[0, 1, -1, i8::MIN, i8::MAX],
        0x5a,
    )?;
    one_type::<u16>(
        dev,
        &mut r,
        &mut out,
        ["u16 ops", "u16 compares"],
        &[0, 1, u16::MAX, 0x8000, 0x7fff],
        0xa5a5,
    )?;
    one_type::<i16>(
        dev,
        &mut r,
        &mut out,
        ["i16 ops", "i16 compares"],
        &[0, 1, -1, i16::MIN, i16::MAX],
        0x5a5a,
    )?;

    // Casts, NaN and out-of-range floats included.
    let n = 2_000;
    let specials = [
        f64::NAN,
        f64::INFINITY,
        -f64::INFINITY,
        255.9,
        256.0,
        -0.9,
        -129.0,
        70000.0,
        -40000.0,
    ];
    let d: Vec<f64> = (0..n)
        .map(|_| {
            if r.random_range(0..3) == 0 {
                specials[r.random_range(0..specials.len())]
            } else {
                r.random_range(-70000.0..70000.0)
            }
        })
        .collect();
    let f: Vec<f32> = d.iter().map(|&v| (v * 0.01) as f32).collect();
    let i: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let (df, dd, di) = (dev.to_device(&f)?, dev.to_device(&d)?, dev.to_device(&i)?);
    let mut bytes = poisoned(dev, 4 * n, 0x77u8)?;
    let mut shorts = poisoned(dev, 4 * n, 0x7777i16)?;
    let (key, offset): (u8, i16) = (r.random(), r.random());
    launch!(narrow_casts[blocks(n, 128), 128](
        &df,
        &dd,
        &di,
        key,
        offset,
        &mut bytes,
        &mut shorts
    ))?;
    let mut want_b = Vec::new();
    let mut want_s = Vec::new();
    for k in 0..n {
        let b0 = f[k] as u8;
        want_b.extend([
            b0,
            d[k] as u8,
            i[k] as u8 & MASK,
            (i[k] as i8) as u8 ^ 200u8 ^ key,
        ]);
        want_s.extend([
            f[k] as i16,
            (d[k] as i16).wrapping_add(DROP),
            (i[k] as i16 / 3).wrapping_sub(offset),
            (b0 as i16 - i16::MAX).max(i16::MIN + 7),
        ]);
    }
    check(&mut out, "casts to u8", &bytes.to_host()?, &want_b, 0.0)?;
    check(&mut out, "casts to i16", &shorts.to_host()?, &want_s, 0.0)?;

    // Overflow checked: 255u8 + 1 and -128i8 - 1 fault; the values below them compute.
    let a: Vec<u8> = (0..n).map(|_| r.random_range(0..255)).collect();
    let b: Vec<i8> = (0..n).map(|_| r.random_range(-127..=127)).collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut o = poisoned(dev, n, 0u8)?;
    let mut so = poisoned(dev, n, 0i8)?;
    launch!(narrow_checked[blocks(n, 128), 128](&da, &db, &mut o, &mut so))?;
    let want: Vec<u8> = a.iter().map(|&v| v + 1).collect();
    check(&mut out, "checked u8", &o.to_host()?, &want, 0.0)?;
    let want: Vec<i8> = b.iter().map(|&v| v - 1).collect();
    check(&mut out, "checked i8", &so.to_host()?, &want, 0.0)?;
    for (a, b, message) in [
        (255u8, 0i8, "attempt to add with overflow"),
        (0, i8::MIN, "attempt to subtract with overflow"),
    ] {
        let (da, db) = (dev.to_device(&[a])?, dev.to_device(&[b])?);
        let launched = launch!(narrow_checked[1, 1](&da, &db, &mut o, &mut so));
        match launched.and_then(|()| dev.synchronize()) {
            Err(GpuError::IntegerFault { operation, .. }) if operation == message => {}
            other => {
                return Err(format!("{a} + 1, {b} - 1: expected `{message}`, got {other:?}").into())
            }
        }
    }
    // Atomics: sums wrap modulo 256, as Rust's `fetch_add`.
    let n = 10_000;
    let v: Vec<u8> = (0..n).map(|_| r.random()).collect();
    let w: Vec<i16> = (0..n).map(|_| r.random()).collect();
    let (dv, dw) = (dev.to_device(&v)?, dev.to_device(&w)?);
    let mut sum = dev.zeros::<u8>(7)?;
    let mut hi = dev.to_device(&[i16::MIN; 3])?;
    let mut bits = dev.zeros::<u16>(2)?;
    launch!(narrow_atomics[blocks(n, 256), 256](&dv, &dw, &mut sum, &mut hi, &mut bits))?;
    let mut want_sum = [0u8; 7];
    let mut want_hi = [i16::MIN; 3];
    let mut want_bits = [0u16; 2];
    for k in 0..n {
        want_sum[k % 4] = want_sum[k % 4].wrapping_add(v[k]);
        want_hi[k % 3] = want_hi[k % 3].max(w[k]);
        want_bits[k % 2] |= 1u16 << (k % 16);
        want_sum[4 + k % 2] ^= v[k];
    }
    check(&mut out, "u8 atomics", &sum.to_host()?, &want_sum, 0.0)?;
    check(&mut out, "i16 atomic_max", &hi.to_host()?, &want_hi, 0.0)?;
    check(&mut out, "u16 atomic_or", &bits.to_host()?, &want_bits, 0.0)?;

    // The random program's mismatch: small values, so the negations never overflow.
    let a: Vec<i32> = (0..n).map(|_| r.random_range(-200..200)).collect();
    let b: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut m = poisoned(dev, 2 * n, 0x5a5a_5a5ai32)?;
    launch!(min_of_negated_i16[blocks(n, 128), 128](&da, &db, &mut m))?;
    let mut want: Vec<i32> = (0..n)
        .map(|i| {
            let m = (-(a[i] as i16)).min(83i16 % ((b[i] as i16) | 1i16));
            m.min((-76i16) << ((-78i16).abs() & 15i16)) as i32
        })
        .collect();
    want.extend((0..n).map(|i| 0i8.wrapping_sub(a[i] as i8).max(-3i8) as i32));
    check(&mut out, "min of a negated i16", &m.to_host()?, &want, 0.0)?;

    // Negations of MIN (wrapped), compared: half the inputs saturate to i16::MIN.
    let a: Vec<f32> = (0..n)
        .map(|k| {
            if k % 2 == 0 {
                -1e6
            } else {
                r.random_range(-40000.0..40000.0)
            }
        })
        .collect();
    let b: Vec<i32> = (0..n)
        .map(|k| {
            if k % 3 == 0 {
                i32::from(i8::MIN)
            } else {
                r.random()
            }
        })
        .collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut m = poisoned(dev, 4 * n, 0x5a5a_5a5ai32)?;
    launch!(max_of_negated_min[blocks(n, 128), 128](&da, &db, &mut m))?;
    let mut want = vec![0i32; 4 * n];
    for i in 0..n {
        let (x, y) = (a[i] as i16, b[i] as i16);
        want[i] = ((x >> 15i16).wrapping_add(!(b[i] as i16)))
            .min(x.wrapping_neg().max((-32768i16).max(y))) as i32;
        want[n + i] = 0i16.wrapping_sub(x).max(y) as i32;
        want[2 * n + i] = (b[i] as i8).wrapping_neg().max(y as i8) as i32;
        want[3 * n + i] = x.wrapping_neg().wrapping_abs().max(y) as i32;
    }
    check(
        &mut out,
        "max of a negated i16::MIN",
        &m.to_host()?,
        &want,
        0.0,
    )?;

    // Saturated casts compared with the type's bounds, clamps written out in Rust.
    let edges = [
        -0.5f32,
        0.0,
        -0.0,
        0.5,
        254.9,
        255.0,
        256.0,
        -300.0,
        1e9,
        -1e9,
        f32::NAN,
        127.0,
        -128.5,
        65535.0,
        -32768.0,
        f32::INFINITY,
    ];
    let a: Vec<f32> = (0..n)
        .map(|k| {
            if k < edges.len() {
                edges[k]
            } else {
                r.random_range(-70000.0..70000.0)
            }
        })
        .collect();
    let w: Vec<i32> = (0..n).map(|_| r.random_range(-600..600)).collect();
    let (da, dw) = (dev.to_device(&a)?, dev.to_device(&w)?);
    let mut m = poisoned(dev, 5 * n, 0x5a5a_5a5ai32)?;
    launch!(saturated_cast_compared[blocks(n, 128), 128](&da, &dw, &mut m))?;
    let mut want = vec![0i32; 5 * n];
    for i in 0..n {
        want[i] = if (a[i] as u8) == 255 { 23 } else { w[i] };
        want[n + i] = if (w[i].clamp(0, 255) as u8) == 255 {
            23
        } else {
            7
        };
        want[2 * n + i] = match a[i] as i8 {
            127 => 23,
            v if v < -127 => 5,
            _ => 7,
        };
        want[3 * n + i] = if (a[i] as u16) == 65535 {
            23
        } else {
            (a[i] as u16).into()
        };
        want[4 * n + i] = if (a[i] as i16) == -32768 {
            23
        } else {
            (a[i] as i16).into()
        };
    }
    check(
        &mut out,
        "saturated casts compared",
        &m.to_host()?,
        &want,
        0.0,
    )?;

    // MIN.abs() faults as a negation, for i8 and i32 alike.
    let mut o8 = poisoned(dev, 1, 0i8)?;
    let mut o32 = poisoned(dev, 1, 0i32)?;
    for (a, b) in [(i8::MIN, 5i32), (-5i8, i32::MIN)] {
        let (da, db) = (dev.to_device(&[a])?, dev.to_device(&[b])?);
        let launched = launch!(abs_of_min[1, 1](&da, &db, &mut o8, &mut o32));
        match launched.and_then(|()| dev.synchronize()) {
            Err(GpuError::IntegerFault {
                operation: "attempt to negate with overflow",
                ..
            }) => {}
            other => {
                return Err(format!(
                    "({a}).abs(), ({b}).abs(): expected a negation's overflow, got {other:?}"
                )
                .into())
            }
        }
    }
    Ok(out)
}
