//! Thread geometry in 1-D, 2-D and 3-D, grid-stride loops, constants and conversions.

use gpu_runtime::prelude::*;

use super::support::*;
use rand::Rng;

#[gpu_kernel]
pub fn geometry_2d(width: usize, height: usize, out: &mut [u32]) {
    let (x, y) = grid_2d();
    if x < width && y < height {
        let o = (y * width + x) * 6;
        out[o] = thread_idx().x;
        out[o + 1] = thread_idx().y;
        out[o + 2] = block_idx().x + block_idx().y * 1000;
        out[o + 3] = block_dim().x * 100 + block_dim().y;
        out[o + 4] = grid_dim().x * 100 + grid_dim().y;
        out[o + 5] = (gridsize_2d().0 * 1000 + gridsize_2d().1) as u32;
    }
}

#[gpu_kernel]
pub fn geometry_3d(nx: usize, ny: usize, nz: usize, out: &mut [u64]) {
    let (x, y, z) = grid_3d();
    let (sx, sy, _) = gridsize_3d();
    if x < nx && y < ny && z < nz {
        out[(z * ny + y) * nx + x] = (x * 1_000_000 + y * 1000 + z + sx * sy * 0) as u64
            + (thread_idx().z as u64) * 1_000_000_000_000
            + (block_dim().z as u64 + grid_dim().z as u64 * 10) * 100_000_000_000_000;
    }
}

pub fn case_geometry(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (w, h) = (r.random_range(20..70usize), r.random_range(10..40usize));
    let (bx, by) = (16u32, 8u32);
    let (gx, gy) = ((w as u32).div_ceil(bx), (h as u32).div_ceil(by));
    let mut d = poisoned(dev, w * h * 6, u32::MAX)?;
    launch!(geometry_2d[(gx, gy), (bx, by)](w, h, &mut d))?;
    let mut want = Vec::new();
    for y in 0..h as u32 {
        for x in 0..w as u32 {
            want.extend([
                x % bx,
                y % by,
                x / bx + (y / by) * 1000,
                bx * 100 + by,
                gx * 100 + gy,
                (gx * bx) * 1000 + gy * by,
            ]);
        }
    }
    check(&mut out, "2d", &d.to_host()?, &want, 0.0)?;

    let (nx, ny, nz) = (
        r.random_range(5..20usize),
        r.random_range(3..9usize),
        r.random_range(2..7usize),
    );
    let (bx, by, bz) = (4u32, 2u32, 2u32);
    let grid = (
        (nx as u32).div_ceil(bx),
        (ny as u32).div_ceil(by),
        (nz as u32).div_ceil(bz),
    );
    let mut d = poisoned(dev, nx * ny * nz, u64::MAX)?;
    launch!(geometry_3d[grid, (bx, by, bz)](nx, ny, nz, &mut d))?;
    let mut want = Vec::new();
    for z in 0..nz as u64 {
        for y in 0..ny as u64 {
            for x in 0..nx as u64 {
                want.push(
                    x * 1_000_000
                        + y * 1000
                        + z
                        + (z % bz as u64) * 1_000_000_000_000
                        + (bz as u64 + grid.2 as u64 * 10) * 100_000_000_000_000,
                );
            }
        }
    }
    let got = d.to_host()?;
    if got != want {
        return Err("3-D geometry mismatch".into());
    }
    out.push(("3d", got.iter().map(|&v| (v % (1 << 52)) as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
pub fn grid_stride(x: &[f32], y: &mut [f32]) {
    let start = grid_1d();
    let stride = gridsize_1d();
    for i in (start..x.len()).step_by(stride) {
        y[i] = x[i] * 2.0 + 1.0;
    }
}

pub fn case_grid_stride(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(10_000..20_000);
    let x = uniform_f32(&mut r, n, -5.0, 5.0);
    let dx = dev.to_device(&x)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    // Far fewer threads than elements: each thread covers many.
    launch!(grid_stride[7, 64](&dx, &mut d))?;
    let want: Vec<f32> = x.iter().map(|v| v.mul_add(2.0, 1.0)).collect();
    check(&mut out, "y", &d.to_host()?, &want, 1e-6)?;
    Ok(out)
}

#[gpu_kernel]
pub fn constants<T: Float>(x: &[T], out: &mut [T], ints: &mut [i64]) {
    let i = grid_1d();
    if i < x.len() {
        out[i] = x[i] * T::from_f64(std::f64::consts::PI) + T::from_usize(i) - T::from_i32(-3);
        ints[i] = i32::MAX as i64 + i32::MIN as i64 + u32::MAX as i64 + (f32::EPSILON * 1e7) as i64;
    }
}

pub fn case_constants(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 1_000;
    let x = uniform_f32(&mut r, n, -5.0, 5.0);
    let dx = dev.to_device(&x)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    let mut di = poisoned(dev, n, 0i64)?;
    launch!(constants[blocks(n, 256), 256](&dx, &mut d, &mut di))?;
    let want: Vec<f32> = x
        .iter()
        .enumerate()
        .map(|(i, v)| v * std::f64::consts::PI as f32 + i as f32 + 3.0)
        .collect();
    check(&mut out, "f32", &d.to_host()?, &want, 1e-6)?;
    let wi =
        vec![i32::MAX as i64 + i32::MIN as i64 + u32::MAX as i64 + (f32::EPSILON * 1e7) as i64; n];
    let gi = di.to_host()?;
    if gi != wi {
        return Err(format!("integer constants: got {}, want {}", gi[0], wi[0]).into());
    }
    out.push(("ints", gi.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

/// Reads one element past the end: the simulator must name kernel, parameter, index and
/// length.
#[gpu_kernel]
pub fn out_of_bounds(a: &[f32], b: &mut [f32]) {
    let i = grid_1d();
    if i < b.len() {
        b[i] = a[i + 1];
    }
}

#[gpu_kernel(launch_bounds(64))]
pub fn bounded_block(out: &mut [u32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = block_dim().x;
    }
}

/// A kernel's `launch_bounds(64)` holds on both backends: `forall` picks at most 64
/// threads per block, and a block of 128 is refused before it runs.
pub fn case_launch_bounds(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(500..3000);
    let mut d = poisoned(dev, n, u32::MAX)?;
    launch!(bounded_block.forall(n)(&mut d))?;
    let got = d.to_host()?;
    if let Some(p) = got.iter().position(|&b| b == 0 || b > 64) {
        return Err(format!("forall ran a block of {} threads (element {p})", got[p]).into());
    }
    match launch!(bounded_block[1, 128](&mut d)) {
        Err(GpuError::InvalidLaunch { .. }) => {}
        other => {
            return Err(format!("a 128-thread block: want InvalidLaunch, got {other:?}").into())
        }
    }
    launch!(bounded_block[blocks(n, 64), 64](&mut d))?;
    check(&mut out, "out", &d.to_host()?, &vec![64u32; n], 0.0)?;
    Ok(out)
}
