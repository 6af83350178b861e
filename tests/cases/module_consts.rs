//! Module constants: Numba's `fast_matmul` with `TPB` as a `const` (the fast_matmul
//! example's kernel), and constants of every primitive type from this module, another
//! module and an `impl`, cast with `as`, in a kernel and a device function.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[allow(dead_code)]
#[path = "../../examples/fast_matmul.rs"]
mod fast_matmul_example;
pub use fast_matmul_example::{fast_matmul, TPB};

pub fn case_fast_matmul(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    // Square, as Numba's kernel needs; not a multiple of TPB.
    let n = r.random_range(20..90);
    let a = uniform_f32(&mut r, n * n, -1.0, 1.0);
    let b = uniform_f32(&mut r, n * n, -1.0, 1.0);
    let (da, db) = (dev.to_device_2d(&a, (n, n))?, dev.to_device_2d(&b, (n, n))?);
    let mut dc = dev.to_device_2d(&vec![f32::NAN; n * n], (n, n))?;
    let blocks = n.div_ceil(TPB);
    launch!(fast_matmul[(blocks, blocks), (TPB, TPB)](&da, &db, &mut dc))?;
    let mut want = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let s: f64 = (0..n)
                .map(|p| a[i * n + p] as f64 * b[p * n + j] as f64)
                .sum();
            want[i * n + j] = s as f32;
        }
    }
    check(&mut out, "c", &dc.to_host()?, &want, 1e-5)?;
    Ok(out)
}

pub const WIDTH: usize = 8;
pub const SCALE: f32 = -1.25;
pub const HALF: f64 = 0.5;
pub const FLIP: bool = true;
pub const BIAS: i32 = -7;

pub mod limits {
    pub const CAP: u32 = 1000;
    pub const WIDE: u64 = 1 << 40;
    pub const NEG: i64 = -(1 << 35);
    pub const SIGNED: isize = -3;
}

pub struct Stencil;
impl Stencil {
    pub const REACH: usize = 2;
}

#[gpu_device]
pub fn scaled(x: f32) -> f32 {
    x * SCALE + (limits::SIGNED as f32)
}

/// Every kind of use: arithmetic, comparisons, conditions, casts, shared-array sizes,
/// a loop bound, and a device function's own constants.
#[gpu_kernel]
pub fn consts_mix(x: &[f32], k: &[i64], y: &mut [f32], z: &mut [i64], w: &mut [u64]) {
    let mut tile = shared_array_2d::<f32, WIDTH, { Stencil::REACH }>();
    let i = grid_1d();
    let t = thread_idx().x as usize;
    if t < WIDTH {
        tile[(t, Stencil::REACH - 1)] = (t as f32) * SCALE;
    }
    sync_threads();
    if i < x.len() {
        let v = if FLIP { -x[i] } else { x[i] };
        let mut near = 0.0f32;
        for d in 0..Stencil::REACH {
            if i + d < x.len() {
                near += x[i + d];
            }
        }
        y[i] = scaled(v) + tile[(i % WIDTH, 1)] + near * (HALF as f32);
        z[i] = k[i] * (BIAS as i64) + limits::NEG;
        w[i] = (k[i] as u64) % (limits::CAP as u64) + limits::WIDE;
    }
}

pub fn case_module_consts(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(100..3000);
    let x = uniform_f32(&mut r, n, -4.0, 4.0);
    let k: Vec<i64> = (0..n).map(|_| r.random_range(0..1 << 30)).collect();
    let (dx, dk) = (dev.to_device(&x)?, dev.to_device(&k)?);
    let mut y = poisoned(dev, n, f32::NAN)?;
    let mut z = poisoned(dev, n, i64::MIN)?;
    let mut w = poisoned(dev, n, u64::MAX)?;
    launch!(consts_mix[blocks(n, 64), 64](&dx, &dk, &mut y, &mut z, &mut w))?;
    // The GPU may contract `x * SCALE + SIGNED` into one fma (`near * 0.5` is exact).
    let (mut plain_y, mut fused_y) = (vec![0.0f32; n], vec![0.0f32; n]);
    let mut want_z = vec![0i64; n];
    let mut want_w = vec![0u64; n];
    for i in 0..n {
        let v = -x[i];
        let near: f32 = (0..2)
            .filter(|d| i + d < n)
            .map(|d| x[i + d])
            .fold(0.0, |a, b| a + b);
        let rest = |s: f32| s + ((i % WIDTH) as f32) * SCALE + near * 0.5;
        plain_y[i] = rest(v * SCALE + -3.0);
        fused_y[i] = rest(v.mul_add(SCALE, -3.0));
        want_z[i] = k[i] * -7 - (1 << 35);
        want_w[i] = (k[i] as u64) % 1000 + (1 << 40);
    }
    check_either(&mut out, "y", &y.to_host()?, &fused_y, &plain_y)?;
    let (z, w) = (z.to_host()?, w.to_host()?);
    if let Some(i) = (0..n).find(|&i| z[i] != want_z[i] || w[i] != want_w[i]) {
        return Err(format!(
            "z[{i}] = {}, w[{i}] = {}; want {} and {}",
            z[i], w[i], want_z[i], want_w[i]
        )
        .into());
    }
    // Exact in f64: |z| < 2^37, w < 2^41.
    out.push(("z", z.iter().map(|&v| v as f64).collect()));
    out.push(("w", w.iter().map(|&v| v as f64).collect()));
    Ok(out)
}
