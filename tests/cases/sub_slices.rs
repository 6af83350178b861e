//! Sub-slices of array parameters passed to device functions, as Rust passes them:
//! `&x[a..b]`, `&x[a..]`, `&x[..=b]`, `&x[..]`, `&mut y[a..b]`; a range Rust refuses (an end
//! past the length, a start past the end, `..=usize::MAX`) and an index past a sub-slice
//! are faults under the array's name, the same on every backend.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::checks::expect_violation;
use super::support::*;

#[gpu_device]
fn weighted_sum(w: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for j in 0..w.len() {
        s += w[j] * (j + 1) as f32;
    }
    s
}

#[gpu_device]
fn fill_ramp(w: &mut [f32], from: f32) {
    for j in 0..w.len() {
        w[j] = from + j as f32;
    }
}

#[gpu_device]
fn pick(w: &[f32], j: usize) -> f32 {
    w[j]
}

/// What `sub_slices` writes for thread `i` into `out[4 * i..]`, as the host computes it
/// (`&x[..]` as the kernel writes it).
#[allow(clippy::redundant_slicing)]
pub fn sub_slice_results(x: &[f32], k: u32) -> [f32; 4] {
    let a = (k % 8) as usize;
    let b = a + (k / 8 % 8) as usize;
    [
        weighted_sum(&x[a..b]),
        weighted_sum(&x[a..]),
        weighted_sum(&x[..=a]) + weighted_sum(&x[..]),
        pick(&x[a..], b - a),
    ]
}

#[gpu_kernel(fmad = false)]
pub fn sub_slices(x: &[f32], ks: &[u32], out: &mut [f32], ramps: &mut [f32]) {
    let i = grid_1d();
    if i < ks.len() && 4 * i + 3 < out.len() && x.len() >= 16 {
        let k = ks[i];
        let a = (k % 8) as usize;
        let b = a + (k / 8 % 8) as usize;
        let s: f32 = weighted_sum(&x[a..b]);
        out[4 * i] = s;
        let t: f32 = weighted_sum(&x[a..]);
        out[4 * i + 1] = t;
        let u: f32 = weighted_sum(&x[..=a]);
        let v: f32 = weighted_sum(&x[..]);
        out[4 * i + 2] = u + v;
        let p: f32 = pick(&x[a..], b - a);
        out[4 * i + 3] = p;
        fill_ramp(&mut ramps[3 * i..3 * i + 3], i as f32);
    }
}

/// `pick(&x[a..b], j)`, or with `..=b` where `inclusive`.
#[gpu_kernel(fmad = false)]
pub fn sub_slice_fault(x: &[f32], a: usize, b: usize, j: usize, inclusive: bool, out: &mut [f32]) {
    if grid_1d() == 0 && out.len() > 0 {
        if inclusive {
            let v: f32 = pick(&x[a..=b], j);
            out[0] = v;
        } else {
            let v: f32 = pick(&x[a..b], j);
            out[0] = v;
        }
    }
}

pub fn case_sub_slices(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(100..400);
    let n = 16 + r.random_range(0..50);
    let x = uniform_f32(&mut r, n, -10.0, 10.0);
    let ks: Vec<u32> = (0..len).map(|_| r.random()).collect();
    let (dx, dk) = (dev.to_device(&x)?, dev.to_device(&ks)?);
    let mut dout = poisoned(dev, 4 * len, f32::NAN)?;
    let mut dramps = poisoned(dev, 3 * len, f32::NAN)?;
    launch!(sub_slices[blocks(len, 64), 64](&dx, &dk, &mut dout, &mut dramps))?;
    let (got, ramps) = (dout.to_host()?, dramps.to_host()?);
    rows_bitwise("sub-slices", &got, |i| sub_slice_results(&x, ks[i]))?;
    rows_bitwise("ramps written through &mut y[a..b]", &ramps, |i| {
        [i as f32, i as f32 + 1.0, i as f32 + 2.0]
    })?;
    // Each range Rust refuses, and an index past a sub-slice; then the device still works.
    let mut one = poisoned(dev, 1, f32::NAN)?;
    let mut fault = |a: usize, b: usize, j: usize, inclusive: bool| {
        launch!(sub_slice_fault[1, 32](&dx, a, b, j, inclusive, &mut one))
            .and_then(|()| dev.synchronize())
    };
    let past = n + r.random_range(1..100);
    expect_violation(fault(2, past, 0, false), "sub_slice_fault", ("x", past, n))?;
    expect_violation(fault(9, 4, 0, false), "sub_slice_fault", ("x", 9, 4))?;
    expect_violation(
        fault(0, usize::MAX, 0, true),
        "sub_slice_fault",
        ("x", usize::MAX, n),
    )?;
    expect_violation(fault(3, 7, 4, false), "sub_slice_fault", ("x", 4, 4))?;
    expect_violation(fault(3, 7, 5, true), "sub_slice_fault", ("x", 5, 5))?;
    fault(3, 7, 4, true)?;
    let got_one = one.to_host()?[0];
    if got_one.to_bits() != x[7].to_bits() {
        return Err(format!("pick(&x[3..=7], 4): got {got_one}, want {}", x[7]).into());
    }
    Ok(vec![(
        "sub_slices",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}
