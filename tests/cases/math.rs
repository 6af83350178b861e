//! Math methods in f32 and f64, against Rust's own.

use gpu_runtime::prelude::*;

use super::support::*;

#[gpu_kernel]
pub fn math_f32(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 16;
        out[o] = a.abs().sqrt();
        out[o + 1] = (a * 0.1).exp();
        out[o + 2] = a.abs().ln();
        out[o + 3] = a.sin();
        out[o + 4] = a.cos();
        out[o + 5] = a.tanh();
        out[o + 6] = a.abs().powf(b * 0.3);
        out[o + 7] = a.powi(3);
        out[o + 8] = a.floor() + a.ceil() * 2.0 + a.round() * 4.0 + a.trunc() * 8.0;
        out[o + 9] = a.mul_add(b, 1.0);
        out[o + 10] = a.min(b) - a.max(b);
        out[o + 11] = a.atan2(b);
        out[o + 12] = a.hypot(b);
        out[o + 13] = a.abs().log2() + a.abs().log10();
        out[o + 14] = (a * 0.05).tan() + (b * 0.1).atan();
        out[o + 15] = a.recip() + a.copysign(b);
    }
}

pub fn math_reference_f32(a: f32, b: f32) -> [f32; 16] {
    [
        a.abs().sqrt(),
        (a * 0.1).exp(),
        a.abs().ln(),
        a.sin(),
        a.cos(),
        a.tanh(),
        a.abs().powf(b * 0.3),
        a.powi(3),
        a.floor() + a.ceil() * 2.0 + a.round() * 4.0 + a.trunc() * 8.0,
        a.mul_add(b, 1.0),
        a.min(b) - a.max(b),
        a.atan2(b),
        a.hypot(b),
        a.abs().log2() + a.abs().log10(),
        (a * 0.05).tan() + (b * 0.1).atan(),
        a.recip() + a.copysign(b),
    ]
}

pub fn case_math_f32(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    let x: Vec<f32> = uniform_f32(&mut r, n, -8.0, 8.0)
        .into_iter()
        .map(|v| if v.abs() < 1e-3 { 0.5 } else { v })
        .collect();
    let y = uniform_f32(&mut r, n, -8.0, 8.0);
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut d = poisoned(dev, n * 16, f32::NAN)?;
    launch!(math_f32[blocks(n, 128), 128](&dx, &dy, &mut d))?;
    let want: Vec<f32> = (0..n)
        .flat_map(|i| math_reference_f32(x[i], y[i]))
        .collect();
    // CUDA's single-precision functions are within a few ulp of correctly rounded.
    check(&mut out, "out", &d.to_host()?, &want, 4e-6)?;
    Ok(out)
}

#[gpu_kernel]
pub fn math_generic<T: Float>(x: &[T], y: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 8;
        out[o] = a.abs().sqrt() + a.abs().cbrt();
        out[o + 1] = a.exp() - a.abs().ln();
        out[o + 2] = a.sin() * a.cos();
        out[o + 3] = a.tanh() + a.sinh().atan();
        out[o + 4] = a.abs().powf(b);
        out[o + 5] = a.powi(2) - b.powi(-1);
        out[o + 6] = a.mul_add(b, T::one()) + a.min(b).max(T::zero());
        out[o + 7] = (a / T::from_f64(16.0)).asin() + (b / T::from_f64(16.0)).acos();
    }
}

pub fn case_math_f64(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    let x: Vec<f64> = uniform_f64(&mut r, n, -8.0, 8.0)
        .into_iter()
        .map(|v| if v.abs() < 1e-3 { 0.5 } else { v })
        .collect();
    let y: Vec<f64> = uniform_f64(&mut r, n, -8.0, 8.0)
        .into_iter()
        .map(|v| if v.abs() < 1e-3 { 0.5 } else { v })
        .collect();
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut d = poisoned(dev, n * 8, f64::NAN)?;
    launch!(math_generic[blocks(n, 128), 128](&dx, &dy, &mut d))?;
    let want: Vec<f64> = (0..n)
        .flat_map(|i| {
            let (a, b) = (x[i], y[i]);
            [
                a.abs().sqrt() + a.abs().cbrt(),
                a.exp() - a.abs().ln(),
                a.sin() * a.cos(),
                a.tanh() + a.sinh().atan(),
                a.abs().powf(b),
                a.powi(2) - b.powi(-1),
                a.mul_add(b, 1.0) + a.min(b).max(0.0),
                (a / 16.0).asin() + (b / 16.0).acos(),
            ]
        })
        .collect();
    check(&mut out, "f64", &d.to_host()?, &want, 1e-13)?;
    Ok(out)
}
