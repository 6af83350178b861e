//! Kernels that index out of range, for the bounds-checked mode, and one that faults.
//!
//! [`bounds_checks`] runs each `#[gpu_kernel(bounds_check)]` kernel twice on a device:
//! in range, where its output must match the CPU reference, and with exactly one kind of
//! violation, which must come back as the `GpuError::OutOfBounds` the inputs imply. The
//! simulator suite runs it in CI; the GPU suite runs it on the GPU and the simulator and
//! requires the same violations from both.

use super::{blocks, check, err, poisoned, rng, uniform_f32, Outputs};
use gpu_runtime::prelude::*;
use rand::Rng;

/// `dst[i] = src[i + shift]`: with `shift = 1` the last thread reads one past `src`.
#[gpu_kernel(bounds_check)]
pub fn shifted_copy(src: &[f32], dst: &mut [f32], shift: usize) {
    let i = grid_1d();
    if i < dst.len() {
        dst[i] = src[i + shift];
    }
}

/// Column sums of the first `rows` rows: `rows` past `m.rows()` reads a row that is not there.
#[gpu_kernel(bounds_check)]
pub fn column_sums(m: &Array2<f32>, out: &mut [f32], rows: usize) {
    let j = grid_1d();
    if j < out.len() {
        let mut s = 0.0f32;
        for r in 0..rows {
            s += m[(r, j)];
        }
        out[j] = s;
    }
}

/// Rotates each block of 64 by one through shared memory, modulo `wrap`: with `wrap = 65`
/// the last thread of each block reads `tile[64]`.
#[gpu_kernel(bounds_check)]
pub fn shared_rotate(a: &[f32], out: &mut [f32], wrap: usize) {
    let mut tile = shared_array::<f32, 64>();
    let tid = thread_idx().x as usize;
    let i = grid_1d();
    tile[tid] = a[i];
    sync_threads();
    out[i] = tile[(tid + 1) % wrap];
}

/// A histogram whose values are bin numbers: a value equal to `bins.len()` is out of range.
#[gpu_kernel(bounds_check)]
pub fn histogram_checked(values: &[u32], bins: &mut [u32]) {
    let i = grid_1d();
    if i < values.len() {
        atomic_add(bins, values[i] as usize, 1u32);
    }
}

/// Doubles `a` four elements at a time, for `vectors` vectors.
#[gpu_kernel(bounds_check)]
pub fn double4(a: &mut [f32], vectors: usize) {
    let i = grid_1d();
    if i < vectors {
        let v = load4(a, i);
        store4(a, i, 2.0 * v[0], 2.0 * v[1], 2.0 * v[2], 2.0 * v[3]);
    }
}

/// Writes `out[at]` without a check: the device-fault test's illegal address.
#[gpu_kernel]
pub fn poke(out: &mut [f32], at: usize) {
    if grid_1d() == 0 {
        out[at] = 1.0;
    }
}

/// The bounds-checked kernels, for the NVRTC suite.
pub fn definitions() -> Vec<&'static gpu_runtime::KernelDef> {
    vec![
        shifted_copy.definition(),
        column_sums.definition(),
        shared_rotate.definition(),
        histogram_checked.definition(),
        double4.definition(),
        poke.definition(),
    ]
}

/// `r` must be exactly the out-of-bounds error `want` (parameter, index, length) of
/// `kernel`; returns it as `kernel: param[index] of len`.
fn expect_violation(
    r: Result<(), GpuError>,
    kernel: &str,
    want: (&str, usize, usize),
) -> Result<String, String> {
    match r {
        Err(GpuError::OutOfBounds {
            kernel: k,
            param,
            index,
            len,
        }) if k == kernel && (param, index, len) == want => {
            Ok(format!("{k}: {param}[{index}] of {len}"))
        }
        Err(e) => Err(format!(
            "{kernel}: expected {}[{}] of {} out of bounds, got: {e}",
            want.0, want.1, want.2
        )),
        Ok(()) => Err(format!(
            "{kernel}: expected {}[{}] of {} out of bounds, but the launch succeeded",
            want.0, want.1, want.2
        )),
    }
}

/// Every bounds case on `dev`: each in-range launch checked against its CPU reference
/// (into `out`), each violation checked against the one its inputs imply. Returns the
/// violations seen, in order.
pub fn bounds_checks(dev: &Device, seed: u64, out: &mut Outputs) -> Result<Vec<String>, String> {
    let mut r = rng(seed ^ 0xb0b0);
    let mut seen = Vec::new();

    // A read one past the end of a slice, then the same kernel in range again.
    let n = r.random_range(1_000..100_000);
    let src = uniform_f32(&mut r, n, -1.0, 1.0);
    let dsrc = dev.to_device(&src).map_err(err)?;
    let mut dst = poisoned(dev, n, f32::NAN)?;
    let g = blocks(n, 256);
    seen.push(expect_violation(
        launch!(shifted_copy[g, 256](&dsrc, &mut dst, 1usize)),
        "shifted_copy",
        ("src", n, n),
    )?);
    let mut dst = poisoned(dev, n, f32::NAN)?;
    launch!(shifted_copy[g, 256](&dsrc, &mut dst, 0usize)).map_err(err)?;
    check(out, "shifted_copy", &dst.to_host().map_err(err)?, &src, 0.0)?;

    // A row past the end of a 2-D array.
    let (rows, cols) = (r.random_range(2..40), r.random_range(100..2_000));
    let m = uniform_f32(&mut r, rows * cols, -1.0, 1.0);
    let dm = dev.to_device_2d(&m, rows, cols).map_err(err)?;
    let mut sums = poisoned(dev, cols, f32::NAN)?;
    launch!(column_sums[blocks(cols, 128), 128](&dm, &mut sums, rows)).map_err(err)?;
    let want: Vec<f32> = (0..cols)
        .map(|j| (0..rows).fold(0.0f32, |s, i| s + m[i * cols + j]))
        .collect();
    check(
        out,
        "column_sums",
        &sums.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    seen.push(expect_violation(
        launch!(column_sums[blocks(cols, 128), 128](&dm, &mut sums, rows + 1)),
        "column_sums",
        ("m (row)", rows, rows),
    )?);

    // Shared memory: index 64 of a 64-element tile.
    let nb = r.random_range(1..200);
    let a = uniform_f32(&mut r, 64 * nb, -1.0, 1.0);
    let da = dev.to_device(&a).map_err(err)?;
    let mut rotated = poisoned(dev, 64 * nb, f32::NAN)?;
    launch!(shared_rotate[nb, 64](&da, &mut rotated, 64usize)).map_err(err)?;
    let want: Vec<f32> = (0..64 * nb)
        .map(|i| a[i / 64 * 64 + (i % 64 + 1) % 64])
        .collect();
    check(
        out,
        "shared_rotate",
        &rotated.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    seen.push(expect_violation(
        launch!(shared_rotate[nb, 64](&da, &mut rotated, 65usize)),
        "shared_rotate",
        ("a shared array", 64, 64),
    )?);

    // An atomic on a bin past the end.
    let (count, bins) = (r.random_range(1_000..50_000), r.random_range(1..300));
    let mut values: Vec<u32> = (0..count).map(|_| r.random_range(0..bins as u32)).collect();
    let dv = dev.to_device(&values).map_err(err)?;
    let mut hist = dev.zeros::<u32>(bins).map_err(err)?;
    launch!(histogram_checked[blocks(count, 256), 256](&dv, &mut hist)).map_err(err)?;
    let mut want = vec![0u32; bins];
    for &v in &values {
        want[v as usize] += 1;
    }
    check(
        out,
        "histogram_checked",
        &hist.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    let at = r.random_range(0..count);
    values[at] = bins as u32;
    let dv = dev.to_device(&values).map_err(err)?;
    seen.push(expect_violation(
        launch!(histogram_checked[blocks(count, 256), 256](&dv, &mut hist)),
        "histogram_checked",
        ("bins", bins, bins),
    )?);

    // A vector load whose four elements start at the end.
    let vectors = r.random_range(1..10_000);
    let x = uniform_f32(&mut r, 4 * vectors, -1.0, 1.0);
    let mut dx = dev.to_device(&x).map_err(err)?;
    launch!(double4[blocks(vectors + 1, 128), 128](&mut dx, vectors)).map_err(err)?;
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
    check(out, "double4", &dx.to_host().map_err(err)?, &want, 0.0)?;
    seen.push(expect_violation(
        launch!(double4[blocks(vectors + 1, 128), 128](&mut dx, vectors + 1)),
        "double4",
        ("a", 4 * vectors, 4 * vectors),
    )?);
    Ok(seen)
}
