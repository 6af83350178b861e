//! Checked indices: kernels that index out of range through every access form the
//! language has, and one `unchecked` kernel.
//!
//! [`case_checked_indices`] runs each checked kernel in range, where its output must match
//! the CPU reference, and with exactly one violation, which must come back as the
//! `GpuError::OutOfBounds` the inputs imply, from the launch (simulator) or the next
//! synchronisation (GPU), after which the device must still work. The GPU suite also
//! surrounds arrays with sentinels to show no neighbour is touched.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// `dst[i] = src[i + shift]`: with `shift = 1` the last thread reads one past `src`.
#[gpu_kernel]
pub fn shifted_copy(src: &[f32], dst: &mut [f32], shift: usize) {
    let i = grid_1d();
    if i < dst.len() {
        dst[i] = src[i + shift];
    }
}

/// Column sums of the first `rows` rows: `rows` past `m.rows()` reads a row that is not there.
#[gpu_kernel]
pub fn column_sums(m: &DeviceArray2<f32>, out: &mut [f32], rows: usize) {
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
#[gpu_kernel]
pub fn shared_rotate(a: &[f32], out: &mut [f32], wrap: usize) {
    let mut tile = shared_array::<f32, 64>();
    let tid = thread_idx().x as usize;
    let i = grid_1d();
    tile[tid] = a[i];
    sync_threads();
    out[i] = tile[(tid + 1) % wrap];
}

/// A histogram whose values are bin numbers: a value equal to `bins.len()` is out of range.
#[gpu_kernel]
pub fn histogram_checked(values: &[u32], bins: &mut [u32]) {
    let i = grid_1d();
    if i < values.len() {
        atomic_add(bins, values[i] as usize, 1u32);
    }
}

/// Doubles `a` four elements at a time, for `vectors` vectors.
#[gpu_kernel]
pub fn double4(a: &mut [f32], vectors: usize) {
    let i = grid_1d();
    if i < vectors {
        let v = load4(a, i);
        store4(a, i, 2.0 * v[0], 2.0 * v[1], 2.0 * v[2], 2.0 * v[3]);
    }
}

/// Sums `width` elements of a local window of 8: a width past 8 reads past the window.
#[gpu_kernel]
pub fn local_window(a: &[f32], out: &mut [f32], width: usize) {
    let i = grid_1d();
    if i < out.len() {
        let mut w = [0.0f32; 8];
        for k in 0..8 {
            w[k] = a[(i + k) % a.len()];
        }
        let mut s = 0.0f32;
        for k in 0..width {
            s += w[k];
        }
        out[i] = s;
    }
}

/// `a[at]`, in a device function: the error names the kernel's array.
#[gpu_device]
pub fn fetch(a: &[f32], at: usize) -> f32 {
    a[at]
}

/// `out[i] = a[i + shift]` through [`fetch`].
#[gpu_kernel]
pub fn device_window(a: &[f32], out: &mut [f32], shift: usize) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = fetch(a, i + shift);
    }
}

/// `dst[i] = src[i]` without checks: the launch is `unsafe`, and an index out of range
/// on the GPU touches memory that is not the array's (the GPU suite's control case; the
/// simulator still checks).
#[gpu_kernel(unchecked)]
pub fn unchecked_copy(src: &[f32], dst: &mut [f32], shift: usize) {
    let i = grid_1d();
    if i < dst.len() {
        dst[i] = src[i + shift];
    }
}

/// Writes `out[at]` without a check: the device-fault test's illegal address.
#[gpu_kernel(unchecked)]
pub fn poke(out: &mut [f32], at: usize) {
    if grid_1d() == 0 {
        out[at] = 1.0;
    }
}

/// `launch` (a launch and the synchronisation after it) must fail with exactly the
/// out-of-bounds error `want` (array, index, length) of `kernel`; returns it as
/// `kernel: array[index] of len`.
pub fn expect_violation(
    launch: Result<(), GpuError>,
    kernel: &str,
    want: (&str, usize, usize),
) -> Result<String, String> {
    match launch {
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

/// Every checked access form on `dev`: in range against the CPU reference, then one
/// violation each, then in range again (the device still works).
pub fn case_checked_indices(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed ^ 0xb0b0);
    let mut out = Outputs::new();
    let sync = || dev.synchronize();

    // A read one past the end of a slice.
    let n = r.random_range(1_000..100_000);
    let src = uniform_f32(&mut r, n, -1.0, 1.0);
    let dsrc = dev.to_device(&src)?;
    let mut dst = poisoned(dev, n, f32::NAN)?;
    let g = blocks(n, 256);
    expect_violation(
        launch!(shifted_copy[g, 256](&dsrc, &mut dst, 1usize)).and_then(|_| sync()),
        "shifted_copy",
        ("src", n, n),
    )?;
    let mut dst = poisoned(dev, n, f32::NAN)?;
    launch!(shifted_copy[g, 256](&dsrc, &mut dst, 0usize))?;
    check(&mut out, "shifted_copy", &dst.to_host()?, &src, 0.0)?;

    // A row past the end of a 2-D array.
    let (rows, cols) = (r.random_range(2..40), r.random_range(100..2_000));
    let m = uniform_f32(&mut r, rows * cols, -1.0, 1.0);
    let dm = dev.to_device_2d(&m, (rows, cols))?;
    let mut sums = poisoned(dev, cols, f32::NAN)?;
    launch!(column_sums[blocks(cols, 128), 128](&dm, &mut sums, rows))?;
    let want: Vec<f32> = (0..cols)
        .map(|j| (0..rows).fold(0.0f32, |s, i| s + m[i * cols + j]))
        .collect();
    check(&mut out, "column_sums", &sums.to_host()?, &want, 0.0)?;
    expect_violation(
        launch!(column_sums[blocks(cols, 128), 128](&dm, &mut sums, rows + 1)).and_then(|_| sync()),
        "column_sums",
        ("m (row)", rows, rows),
    )?;

    // Shared memory: index 64 of a 64-element tile.
    let nb = r.random_range(1..200);
    let a = uniform_f32(&mut r, 64 * nb, -1.0, 1.0);
    let da = dev.to_device(&a)?;
    let mut rotated = poisoned(dev, 64 * nb, f32::NAN)?;
    launch!(shared_rotate[nb, 64](&da, &mut rotated, 64usize))?;
    let want: Vec<f32> = (0..64 * nb)
        .map(|i| a[i / 64 * 64 + (i % 64 + 1) % 64])
        .collect();
    check(&mut out, "shared_rotate", &rotated.to_host()?, &want, 0.0)?;
    expect_violation(
        launch!(shared_rotate[nb, 64](&da, &mut rotated, 65usize)).and_then(|_| sync()),
        "shared_rotate",
        ("tile (shared array)", 64, 64),
    )?;

    // An atomic on a bin past the end.
    let (count, bins) = (r.random_range(1_000..50_000), r.random_range(1..300));
    let mut values: Vec<u32> = (0..count).map(|_| r.random_range(0..bins as u32)).collect();
    let dv = dev.to_device(&values)?;
    let mut hist = dev.zeros::<u32>(bins)?;
    launch!(histogram_checked[blocks(count, 256), 256](&dv, &mut hist))?;
    let mut want = vec![0u32; bins];
    for &v in &values {
        want[v as usize] += 1;
    }
    check(&mut out, "histogram_checked", &hist.to_host()?, &want, 0.0)?;
    let at = r.random_range(0..count);
    values[at] = bins as u32;
    let dv = dev.to_device(&values)?;
    expect_violation(
        launch!(histogram_checked[blocks(count, 256), 256](&dv, &mut hist)).and_then(|_| sync()),
        "histogram_checked",
        ("bins", bins, bins),
    )?;

    // A vector load whose four elements start at the end.
    let vectors = r.random_range(1..10_000);
    let x = uniform_f32(&mut r, 4 * vectors, -1.0, 1.0);
    let mut dx = dev.to_device(&x)?;
    launch!(double4[blocks(vectors + 1, 128), 128](&mut dx, vectors))?;
    let want: Vec<f32> = x.iter().map(|v| 2.0 * v).collect();
    check(&mut out, "double4", &dx.to_host()?, &want, 0.0)?;
    expect_violation(
        launch!(double4[blocks(vectors + 1, 128), 128](&mut dx, vectors + 1)).and_then(|_| sync()),
        "double4",
        ("a", 4 * vectors, 4 * vectors),
    )?;
    // A view that does not start on 16 bytes: refused before it runs, on both backends
    // (on a GPU a misaligned vector access would fault the context); one that does, runs.
    match launch!(double4[1, 128](&mut dx.slice_mut(1..)?, 1)) {
        Err(GpuError::InvalidLaunch { reason, .. }) if reason.contains("16-byte") => {}
        other => return Err(format!("load4 on a view at element 1: {other:?}").into()),
    }
    launch!(double4[1, 128](&mut dx.slice_mut(4..)?, 1))?;
    sync()?;

    // A local array read past its 8 elements.
    let n = r.random_range(100..5_000);
    let a = uniform_f32(&mut r, n, -1.0, 1.0);
    let da = dev.to_device(&a)?;
    let mut sums = poisoned(dev, n, f32::NAN)?;
    let width = r.random_range(1..=8);
    launch!(local_window[blocks(n, 128), 128](&da, &mut sums, width))?;
    let want: Vec<f32> = (0..n)
        .map(|i| (0..width).fold(0.0f32, |s, k| s + a[(i + k) % n]))
        .collect();
    check(&mut out, "local_window", &sums.to_host()?, &want, 0.0)?;
    expect_violation(
        launch!(local_window[blocks(n, 128), 128](&da, &mut sums, 9usize)).and_then(|_| sync()),
        "local_window",
        ("w (local array)", 8, 8),
    )?;

    // A device function indexing the kernel's array past its end.
    let mut shifted = poisoned(dev, n, f32::NAN)?;
    launch!(device_window[blocks(n, 128), 128](&da, &mut shifted, 0usize))?;
    check(&mut out, "device_window", &shifted.to_host()?, &a, 0.0)?;
    expect_violation(
        launch!(device_window[blocks(n, 128), 128](&da, &mut shifted, 1usize)).and_then(|_| sync()),
        "device_window",
        ("a", n, n),
    )?;

    // An unchecked kernel in range computes what the checked one does.
    let mut copied = poisoned(dev, n, f32::NAN)?;
    // SAFETY: with `shift = 0` every index `i < dst.len()` is below `src.len()` (equal
    // lengths).
    unsafe { launch!(unchecked_copy[blocks(n, 128), 128](&da, &mut copied, 0usize)) }?;
    check(&mut out, "unchecked_copy", &copied.to_host()?, &a, 0.0)?;

    // The device still works after the violations: the first case again, in range.
    let mut dst = poisoned(dev, src.len(), f32::NAN)?;
    launch!(shifted_copy[blocks(src.len(), 256), 256](&dsrc, &mut dst, 0usize))?;
    check(&mut out, "after the violations", &dst.to_host()?, &src, 0.0)?;
    Ok(out)
}
