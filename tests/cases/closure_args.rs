//! Closures passed to device functions: `F: Fn(..)` type parameters (bounds inline and in
//! `where`, with `Copy` beside), `impl Fn(..)` parameters, `FnMut` changing the caller's
//! locals, closures typed by annotation or by their captures, a closure local passed by
//! name (a `move` one's state copied as Rust copies it), a closure passed on, nested
//! closures, a method taking one, struct values in and out, and an array read inside one.
//! Each against the same Rust on the host; one kernel's index, proven in range, is moved
//! by a closure and checked again.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::checks::expect_violation;
use super::support::*;

#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span2 {
    pub lo: f32,
    pub hi: f32,
}

#[gpu_device]
impl Span2 {
    pub fn map(self, f: impl Fn(f32) -> f32) -> Span2 {
        Span2 {
            lo: f(self.lo),
            hi: f(self.hi),
        }
    }
}

#[gpu_device]
pub fn apply<F: Fn(f32) -> f32>(f: F, x: f32) -> f32 {
    f(x)
}

/// `f` passed on twice: `Copy` lets Rust do that.
#[gpu_device]
pub fn apply_twice<F: Fn(f32) -> f32 + Copy>(f: F, x: f32) -> f32 {
    apply(f, apply(f, x))
}

#[gpu_device]
pub fn twice_i(f: impl Fn(i32) -> i32, x: i32) -> i32 {
    f(f(x))
}

/// Calls `f` with 0..n, for its effects.
#[gpu_device]
pub fn repeat<F: FnMut(u32)>(n: u32, mut f: F) {
    for k in 0..n {
        f(k);
    }
}

#[gpu_device]
pub fn fold_to<F>(n: u32, init: i64, f: F) -> i64
where
    F: Fn(i64, u32) -> i64,
{
    let mut acc = init;
    for k in 0..n {
        acc = f(acc, k);
    }
    acc
}

/// Generic over the dtype: `f` of each of `a`'s elements from `from` on, summed.
#[gpu_device]
pub fn sum_mapped<T: Float, F: Fn(T) -> T>(a: &[T], from: usize, f: F) -> T {
    let mut s = T::zero();
    for j in from..a.len() {
        s += f(a[j]);
    }
    s
}

/// Calls a counter twice and adds what it gave.
#[gpu_device]
pub fn two_draws<F: FnMut() -> i32>(mut next: F) -> i32 {
    let a = next();
    a + next()
}

#[gpu_device]
pub fn widen(s: Span2, f: impl Fn(Span2) -> Span2) -> f32 {
    let w = f(s);
    w.hi - w.lo
}

/// The results of `closure_args` for element `i`, as the host computes them.
pub fn closure_arg_results(xs: &[f32], ks: &[i32], i: usize) -> [f32; 15] {
    let (x, k) = (xs[i], ks[i]);
    let scale = 1.5f32;
    let r0 = apply(|v| v * scale - 2.0, x);
    let r1 = apply_twice(|v: f32| v / 4.0, x);
    let r2 = twice_i(|n: i32| n.wrapping_mul(3) ^ 5, k) as f32;
    let mut count = 0u32;
    repeat(5, |j| count += j * 2);
    let r3 = count as f32;
    let r4 = fold_to(6, k as i64, |acc, j: u32| acc * 2 + j as i64) as f32;
    let r5 = sum_mapped(xs, xs.len() - 3, |v| v * scale);
    let mut n = k;
    let next = move || {
        n += 1;
        n
    };
    let r6 = (two_draws(next) + two_draws(next) + n) as f32;
    let r7 = apply(|v: f32| apply(|w: f32| w * 0.5, v) + scale, x);
    let s = Span2 { lo: x, hi: x + 3.0 };
    let r8 = s.map(|v: f32| v * v).hi;
    let r9 = widen(s, |t: Span2| Span2 {
        lo: t.lo - 1.0,
        hi: t.hi * 2.0,
    });
    let off = if i + 1 < xs.len() { xs[i + 1] } else { 0.0 };
    let r10 = apply(
        |v| {
            let mut t = v;
            if t > 0.0 {
                t -= off;
            }
            t
        },
        x,
    );
    let shift = |v: f32| v + 10.0;
    let r11 = apply(shift, x) + shift(1.0);
    // Captures by scope: a later `let w` in a body, a nested closure's parameter `w`.
    let w = x;
    let f = |v: f32| {
        let y = v + w;
        let w = 5.0f32;
        y + w
    };
    let g = |v: f32| apply(|w: f32| w * 2.0, v) + w;
    let w = 100.0f32;
    let (r12, r13, r14) = (f(0.0f32), apply(f, 0.0f32), g(1.0f32) + w * 0.0);
    [
        r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14,
    ]
}

#[gpu_kernel]
pub fn closure_args(xs: &[f32], ks: &[i32], out: &mut [f32]) {
    let i = grid_1d();
    if i < xs.len() && i < ks.len() && 15 * i + 14 < out.len() {
        let (x, k) = (xs[i], ks[i]);
        let scale = 1.5f32;
        out[15 * i] = apply(|v| v * scale - 2.0, x);
        out[15 * i + 1] = apply_twice(|v: f32| v / 4.0, x);
        let t: i32 = twice_i(|n: i32| n.wrapping_mul(3) ^ 5, k);
        out[15 * i + 2] = t as f32;
        let mut count = 0u32;
        repeat(5, |j| count += j * 2);
        out[15 * i + 3] = count as f32;
        let folded: i64 = fold_to(6, k as i64, |acc, j: u32| acc * 2 + j as i64);
        out[15 * i + 4] = folded as f32;
        out[15 * i + 5] = sum_mapped(xs, xs.len() - 3, |v| v * scale);
        let mut n = k;
        let next = move || {
            n += 1;
            n
        };
        out[15 * i + 6] = (two_draws(next) + two_draws(next) + n) as f32;
        out[15 * i + 7] = apply(|v: f32| apply(|w: f32| w * 0.5, v) + scale, x);
        let s = Span2 { lo: x, hi: x + 3.0 };
        let m: Span2 = s.map(|v: f32| v * v);
        out[15 * i + 8] = m.hi;
        out[15 * i + 9] = widen(s, |t: Span2| Span2 {
            lo: t.lo - 1.0,
            hi: t.hi * 2.0,
        });
        out[15 * i + 10] = apply(
            |v| {
                let mut t = v;
                if t > 0.0 {
                    t -= if i + 1 < xs.len() { xs[i + 1] } else { 0.0 };
                }
                t
            },
            x,
        );
        let shift = |v: f32| v + 10.0;
        out[15 * i + 11] = apply(shift, x) + shift(1.0);
        let w = x;
        let f = |v: f32| {
            let y = v + w;
            let w = 5.0f32;
            y + w
        };
        let g = |v: f32| apply(|w: f32| w * 2.0, v) + w;
        let w = 100.0f32;
        out[15 * i + 12] = f(0.0f32);
        out[15 * i + 13] = apply(f, 0.0f32);
        out[15 * i + 14] = g(1.0f32) + w * 0.0;
    }
}

/// `a[k]` with `k` proven below `a.len()`, then moved by a closure a device function
/// calls: the write after is checked again.
#[gpu_kernel]
pub fn closure_moved_index(a: &mut [f32], by: usize) {
    let i = grid_1d();
    if i < a.len() {
        let mut k = i;
        a[k] = 2.0;
        repeat(1, |_j: u32| k += by);
        a[k] = 1.0;
    }
}

pub fn case_closure_args(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(100..600);
    let xs = uniform_f32(&mut r, len, -100.0, 100.0);
    let ks: Vec<i32> = (0..len).map(|_| r.random_range(-1000..1000)).collect();
    let (dx, dk) = (dev.to_device(&xs)?, dev.to_device(&ks)?);
    let mut dout = poisoned(dev, 15 * len, f32::NAN)?;
    launch!(closure_args[blocks(len, 64), 64](&dx, &dk, &mut dout))?;
    let got = dout.to_host()?;
    rows_bitwise("closure_args", &got, |i| closure_arg_results(&xs, &ks, i))?;
    // One thread's closure moves its index past the end: the write there faults.
    let n = r.random_range(1..200);
    let mut a = poisoned(dev, n, f32::NAN)?;
    let bad = launch!(closure_moved_index[1, 1](&mut a, n)).and_then(|()| dev.synchronize());
    expect_violation(bad, "closure_moved_index", ("a", n, n))?;
    Ok(vec![(
        "closure_args",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}
