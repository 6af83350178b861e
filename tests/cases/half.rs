//! 16-bit floats: f16 and bf16 arithmetic, math, comparisons and atomics.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// Arithmetic, math, comparisons and an atomic sum on a generic float, for f16 and bf16.
#[gpu_kernel]
pub fn half_ops<T: Float>(x: &[T], y: &[T], out: &mut [T], total: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        let o = i * 6;
        out[o] = a * b + a / (b.abs() + T::one());
        out[o + 1] = a.mul_add(b, -a);
        out[o + 2] = (a.abs() + T::from_f64(0.1)).sqrt().exp() - b.sin();
        out[o + 3] = if a < b {
            a.max(b)
        } else {
            a.min(b) - T::from_i32(1)
        };
        out[o + 4] = T::from_f64(a.to_f64() * 0.5) % (b.abs() + T::one());
        out[o + 5] = -a;
        atomic_add(total, 0, T::from_f64(0.25));
    }
}

fn half_reference<T: Float>(a: T, b: T) -> [T; 6] {
    [
        a * b + a / (b.abs() + T::one()),
        a.mul_add(b, -a),
        (a.abs() + T::from_f64(0.1)).sqrt().exp() - b.sin(),
        if a < b {
            a.max(b)
        } else {
            a.min(b) - T::from_i32(1)
        },
        T::from_f64(a.to_f64() * 0.5) % (b.abs() + T::one()),
        -a,
    ]
}

fn half_case<T: Float>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
) -> CaseResult<()> {
    let n = 1000;
    let x: Vec<T> = (0..n)
        .map(|_| T::from_f64(r.random_range(-4.0..4.0)))
        .collect();
    let y: Vec<T> = (0..n)
        .map(|_| T::from_f64(r.random_range(-4.0..4.0)))
        .collect();
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut d = dev.to_device(&vec![T::from_f64(f64::NAN); n * 6])?;
    let mut total = dev.zeros::<T>(1)?;
    launch!(half_ops[blocks(n, 128), 128](&dx, &dy, &mut d, &mut total))?;
    let got = d.to_host()?;
    let want: Vec<T> = (0..n).flat_map(|i| half_reference(x[i], y[i])).collect();
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        // Each operation rounds once from f32 on both sides; f32 math functions differ by
        // a few ulp between CUDA and Rust, which can move a 16-bit result by one step.
        let (gf, wf) = (g.to_f64(), w.to_f64());
        let step = if name == "bf16" {
            1.0 / 128.0
        } else {
            1.0 / 1024.0
        };
        if gf.is_nan() || (gf - wf).abs() > step * wf.abs().max(1.0) {
            return Err(format!("{name}[{k}]: got {gf}, want {wf}").into());
        }
    }
    out.push((name, got.iter().map(|v| v.to_f64()).collect()));
    // Adding one value n times in any order gives the same rounding sequence: the host's.
    let want_sum = (0..n)
        .fold(T::zero(), |acc, _| acc + T::from_f64(0.25))
        .to_f64();
    let sum = total.to_host()?[0].to_f64();
    if sum != want_sum {
        return Err(format!("{name} atomic sum {sum}, want {want_sum}").into());
    }
    Ok(())
}

pub fn case_half(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    half_case::<f16>(dev, &mut r, &mut out, "f16")?;
    half_case::<bf16>(dev, &mut r, &mut out, "bf16")?;
    Ok(out)
}
