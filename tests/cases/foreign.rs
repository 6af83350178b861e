//! Foreign CUDA C device functions (`#[gpu_extern]`), Numba's `cuda.declare_device`.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[gpu_extern(file = "foreign/functions.cu")]
unsafe extern "C" {
    /// `x * y`, in C (Numba's example).
    #[simulator(mul_on_cpu)]
    fn mul_f32_f32(x: f32, y: f32) -> f32;
    /// `a + b` clamped to `[-limit, limit]`; the C takes `long`s.
    #[simulator(clamp_add_on_cpu)]
    fn clamp_add(a: i64, b: i64, limit: i64) -> i64;
    /// `3x + 1`, with no Rust function for the simulator.
    fn gpu_only(x: i32) -> i32;
}

/// The same file declared again, in another module: a kernel that calls through both
/// compiles the C once.
pub mod again {
    use gpu_runtime::prelude::*;

    #[gpu_extern(file = "foreign/functions.cu")]
    unsafe extern "C" {
        #[simulator(super::mul_on_cpu)]
        pub fn mul_f32_f32(x: f32, y: f32) -> f32;
    }
}

fn mul_on_cpu(x: f32, y: f32) -> f32 {
    x * y
}

fn clamp_add_on_cpu(a: i64, b: i64, limit: i64) -> i64 {
    (a + b).clamp(-limit, limit)
}

/// Numba's `multiply_vectors`: each element through the foreign function.
#[gpu_kernel]
pub fn multiply_vectors(r: &mut [f32], x: &[f32], y: &[f32]) {
    let i = grid_1d();
    if i < r.len() {
        r[i] = unsafe { mul_f32_f32(x[i], y[i]) };
    }
}

/// `x * y * y`, through both declarations of one file.
#[gpu_kernel]
pub fn through_two_blocks(r: &mut [f32], x: &[f32], y: &[f32]) {
    let i = grid_1d();
    if i < r.len() {
        let p = unsafe { mul_f32_f32(x[i], y[i]) };
        r[i] = unsafe { again::mul_f32_f32(p, y[i]) };
    }
}

/// Two foreign functions of one block in one kernel, in an expression.
#[gpu_kernel]
pub fn clamped_sums(a: &[i64], b: &[i64], out: &mut [i64], limit: i64) {
    let i = grid_1d();
    if i < out.len() {
        let s = unsafe { clamp_add(a[i], b[i], limit) };
        out[i] = s * 2 + unsafe { clamp_add(s, 1, limit) };
    }
}

#[gpu_kernel]
pub fn on_gpu_only(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = unsafe { gpu_only(x[i]) };
    }
}

pub fn case_foreign(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 1000;
    let x = uniform_f32(&mut r, n, -100.0, 100.0);
    let y = uniform_f32(&mut r, n, -100.0, 100.0);
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut d = poisoned(dev, n, f32::NAN)?;
    // SAFETY: `mul_f32_f32` reads its two scalars and returns their product.
    unsafe { launch!(multiply_vectors[blocks(n, 128), 128](&mut d, &dx, &dy)) }?;
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a * b).collect();
    check(&mut out, "multiply_vectors", &d.to_host()?, &want, 0.0)?;
    let mut d2 = poisoned(dev, n, f32::NAN)?;
    // SAFETY: as above, twice.
    unsafe { launch!(through_two_blocks[blocks(n, 128), 128](&mut d2, &dx, &dy)) }?;
    let want: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a * b * b).collect();
    check(&mut out, "through_two_blocks", &d2.to_host()?, &want, 0.0)?;

    let limit = 1_000_000i64;
    let a: Vec<i64> = (0..n).map(|_| r.random_range(-limit..limit)).collect();
    let b: Vec<i64> = (0..n).map(|_| r.random_range(-limit..limit)).collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut ds = poisoned(dev, n, i64::MIN)?;
    // SAFETY: `clamp_add` adds and clamps scalars well inside `long`'s range.
    unsafe { launch!(clamped_sums[blocks(n, 128), 128](&da, &db, &mut ds, limit)) }?;
    let want: Vec<i64> = a
        .iter()
        .zip(&b)
        .map(|(&a, &b)| {
            let s = clamp_add_on_cpu(a, b, limit);
            s * 2 + clamp_add_on_cpu(s, 1, limit)
        })
        .collect();
    // Every value is below 2^53 in magnitude, so exact as f64.
    let as_f64 = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
    check(
        &mut out,
        "clamped_sums",
        &as_f64(&ds.to_host()?),
        &as_f64(&want),
        0.0,
    )?;

    // Without a Rust function, the simulator refuses the launch and names the function;
    // the GPU runs it.
    let xi: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
    let dxi = dev.to_device(&xi)?;
    let mut di = poisoned(dev, n, i32::MIN)?;
    // SAFETY: `gpu_only` computes on its scalar.
    let launched = unsafe { launch!(on_gpu_only[blocks(n, 128), 128](&dxi, &mut di)) };
    if dev.backend() == gpu_runtime::Backend::Simulator {
        match launched {
            Err(GpuError::InvalidLaunch { reason, .. })
                if reason.contains("`gpu_only`") && reason.contains("#[simulator(path)]") => {}
            other => return Err(format!("gpu_only on the simulator: {other:?}").into()),
        }
    } else {
        launched?;
        let want: Vec<i32> = xi.iter().map(|v| v * 3 + 1).collect();
        // Not among the outputs both backends give.
        compare("on_gpu_only", &f64s(&di.to_host()?), &f64s(&want), 0.0)?;
    }
    Ok(out)
}
