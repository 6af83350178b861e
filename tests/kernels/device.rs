//! Kernels calling `#[gpu_device]` functions: generic, calling each other, with early
//! returns and value-producing `if`s, from a module of their own.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::{blocks, check, err, poisoned, rng, Outputs};

pub mod helpers {
    use gpu_runtime::prelude::*;

    /// `x` clamped to `[lo, hi]`.
    #[gpu_device]
    pub fn clamp<T: Float>(x: T, lo: T, hi: T) -> T {
        if x < lo {
            return lo;
        }
        x.min(hi)
    }

    /// A smooth step between 0 and 1, through `clamp`.
    #[gpu_device]
    pub fn smoothstep<T: Float>(x: T) -> T {
        let t = clamp(x, T::zero(), T::one());
        t * t * (T::from_f64(3.0) - T::from_f64(2.0) * t)
    }

    /// Collatz steps from `n`, capped: loops and a value-producing `if` in a device function.
    #[gpu_device]
    pub fn collatz_steps(n: u64, cap: u32) -> u32 {
        let mut v = n;
        let mut steps = 0u32;
        while v > 1 && steps < cap {
            v = if v % 2 == 0 {
                v / 2
            } else {
                let up = 3 * v;
                up + 1
            };
            steps += 1;
        }
        steps
    }
}

#[gpu_kernel]
pub fn shade<T: Float>(x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] =
            helpers::smoothstep(x[i]) + helpers::clamp(x[i], T::from_f64(-0.5), T::from_f64(0.5));
    }
}

#[gpu_kernel]
pub fn collatz(n: &[u64], steps: &mut [u32]) {
    let i = grid_1d();
    if i < n.len() {
        let s = helpers::collatz_steps(n[i], 500);
        steps[i] = s;
    }
}

fn smoothstep_ref(x: f64) -> f64 {
    let t = x.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

pub fn case_device(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1_000..5_000);
    let x: Vec<f64> = (0..n).map(|_| r.random_range(-1.5..1.5)).collect();
    let dx = dev.to_device(&x).map_err(err)?;
    let mut dy = poisoned(dev, n, f64::NAN)?;
    launch!(shade[blocks(n, 128), 128](&dx, &mut dy)).map_err(err)?;
    let want: Vec<f64> = x
        .iter()
        .map(|&v| smoothstep_ref(v) + v.clamp(-0.5, 0.5))
        .collect();
    check(&mut out, "f64", &dy.to_host().map_err(err)?, &want, 1e-15)?;
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let dxf = dev.to_device(&xf).map_err(err)?;
    let mut dyf = poisoned(dev, n, f32::NAN)?;
    launch!(shade[blocks(n, 128), 128](&dxf, &mut dyf)).map_err(err)?;
    let want: Vec<f32> = xf
        .iter()
        .map(|&v| (smoothstep_ref(v as f64) + (v as f64).clamp(-0.5, 0.5)) as f32)
        .collect();
    check(&mut out, "f32", &dyf.to_host().map_err(err)?, &want, 1e-6)?;

    let starts: Vec<u64> = (0..n).map(|_| r.random_range(1..100_000)).collect();
    let ds = dev.to_device(&starts).map_err(err)?;
    let mut dsteps = poisoned(dev, n, u32::MAX)?;
    launch!(collatz[blocks(n, 128), 128](&ds, &mut dsteps)).map_err(err)?;
    let want: Vec<u32> = starts
        .iter()
        .map(|&s| helpers::collatz_steps(s, 500))
        .collect();
    check(
        &mut out,
        "collatz",
        &dsteps.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    Ok(out)
}
