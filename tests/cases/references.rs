//! References to locals: device functions with out-parameters (`acc: &mut f32`,
//! `lo: &mut f32`, `p: &mut Vec3`, `by: &T`), a reference passed on to another device
//! function, `let r = &mut acc; *r += v;`; and a local whose `&mut` was lent, whose index
//! the prover had proven in range before, checked again after. Each against the same Rust
//! on the host, bit for bit (`fmad = false`: no contraction).

use gpu_runtime::prelude::*;
use rand::Rng;

use super::checks::expect_violation;
use super::structs::Vec3;
use super::support::*;

#[gpu_device]
pub fn accumulate(acc: &mut f32, v: f32) {
    *acc += v * v;
}

#[gpu_device]
pub fn widen(v: f32, lo: &mut f32, hi: &mut f32) {
    if v < *lo {
        *lo = v;
    }
    if v > *hi {
        *hi = v;
    }
}

#[gpu_device]
pub fn bump<T: Float>(x: &mut T, by: &T) {
    *x = *x + *by;
}

#[gpu_device]
pub fn accumulate_twice(acc: &mut f32, v: f32) {
    accumulate(acc, v);
    accumulate(acc, v + 1.0);
}

/// A reference named again and lent on (`&mut *acc`), as Rust reborrows it.
#[gpu_device]
pub fn accumulate_again(acc: &mut f32, v: f32) {
    let again = &mut *acc;
    accumulate(again, v);
    accumulate(&mut *acc, 1.0f32);
}

#[gpu_device]
pub fn stretch(p: &mut Vec3, s: f32) {
    p.x *= s;
    p.z = p.z + s;
}

/// What `references` writes for element `i`, as the host computes it.
pub fn reference_results(x: &[f32], i: usize) -> [f32; 5] {
    let n = x.len();
    let mut acc = 0.0f32;
    for j in 0..4 {
        accumulate(&mut acc, x[(i + j) % n]);
    }
    let mut lo = f32::MAX;
    let mut hi = f32::MIN;
    widen(x[i], &mut lo, &mut hi);
    widen(x[(i + 1) % n], &mut lo, &mut hi);
    let mut c = acc;
    let by = 0.5f32;
    bump(&mut c, &by);
    accumulate_twice(&mut c, x[i]);
    accumulate_again(&mut c, x[(i + 2) % n]);
    let r = &mut acc;
    *r += 1.0;
    *r *= 2.0;
    let mut p = Vec3 {
        x: x[i],
        y: 1.0,
        z: -2.0,
    };
    stretch(&mut p, 3.0);
    [acc, lo, hi, c, p.x + p.z]
}

#[gpu_kernel(fmad = false)]
pub fn references(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let n = x.len();
    if i < n && 5 * i + 4 < out.len() {
        let mut acc = 0.0f32;
        for j in 0..4 {
            accumulate(&mut acc, x[(i + j) % n]);
        }
        let mut lo = f32::MAX;
        let mut hi = f32::MIN;
        widen(x[i], &mut lo, &mut hi);
        widen(x[(i + 1) % n], &mut lo, &mut hi);
        let mut c = acc;
        let by = 0.5f32;
        bump(&mut c, &by);
        accumulate_twice(&mut c, x[i]);
        accumulate_again(&mut c, x[(i + 2) % n]);
        let r = &mut acc;
        *r += 1.0;
        *r *= 2.0;
        let mut p = Vec3 {
            x: x[i],
            y: 1.0,
            z: -2.0,
        };
        stretch(&mut p, 3.0f32);
        out[5 * i] = acc;
        out[5 * i + 1] = lo;
        out[5 * i + 2] = hi;
        out[5 * i + 3] = c;
        out[5 * i + 4] = p.x + p.z;
    }
}

#[gpu_device]
pub fn push_past(k: &mut usize, by: usize) {
    *k += by;
}

/// `a[k] = 1.0` with `k` proven below `a.len()`, then lent as `&mut k` to a function that
/// moves it: the write is checked again.
#[gpu_kernel(fmad = false)]
pub fn lent_index(a: &mut [f32], by: usize) {
    let i = grid_1d();
    if i < a.len() {
        let mut k = i;
        a[k] = 2.0;
        push_past(&mut k, by);
        a[k] = 1.0;
    }
}

pub fn case_references(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(100..600);
    let x = uniform_f32(&mut r, len, -50.0, 50.0);
    let dx = dev.to_device(&x)?;
    let mut dout = poisoned(dev, 5 * len, f32::NAN)?;
    launch!(references[blocks(len, 64), 64](&dx, &mut dout))?;
    let got = dout.to_host()?;
    rows_bitwise("references", &got, |i| reference_results(&x, i))?;
    // One thread moves its index past the end: its write there faults.
    let n = r.random_range(1..200);
    let mut a = poisoned(dev, n, f32::NAN)?;
    let bad = launch!(lent_index[1, 1](&mut a, n)).and_then(|()| dev.synchronize());
    expect_violation(bad, "lent_index", ("a", n, n))?;
    Ok(vec![(
        "references",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}
