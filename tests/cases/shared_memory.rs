//! Shared memory and barriers: a block reduction (the reduce example's kernel), histograms
//! with atomics on global and shared memory, Numba's tiled matmul (the matmul example's
//! kernel), barrier reductions, dynamic shared memory and local arrays.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

// The reduce example's kernel, checked here on fresh random inputs.
#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce_example;
pub use reduce_example::block_sum;

pub fn case_reduce(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(50_000..300_000);
    let x = uniform_f32(&mut r, n, -1.0, 1.0);
    let dx = dev.to_device(&x)?;
    let grid = 64usize;
    let mut partial = poisoned(dev, grid, f32::NAN)?;
    launch!(block_sum[grid, 256](&dx, &mut partial))?;
    let mut total = poisoned(dev, 1, f32::NAN)?;
    launch!(block_sum[1, 256](&partial, &mut total))?;
    let got = total.to_host()?[0] as f64;
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    // f32 partial sums of ~1e5 terms of magnitude <= 1.
    if (got - want).abs() > 1e-3 * (n as f64).sqrt() {
        return Err(format!("sum {got}, want {want}").into());
    }
    out.push(("sum", vec![got]));
    Ok(out)
}

#[gpu_kernel]
pub fn histogram_global(values: &[u32], bins: &mut [u32]) {
    let i = grid_1d();
    if i < values.len() {
        let b = (values[i] % bins.len() as u32) as usize;
        atomic_add(bins, b, 1);
    }
}

/// Per-block counts in shared memory, merged into the global histogram once per block.
#[gpu_kernel]
pub fn histogram_shared(values: &[u32], bins: &mut [u32]) {
    let mut local = shared_array::<u32, 64>();
    let tid = thread_idx().x as usize;
    if tid < 64 {
        local[tid] = 0;
    }
    sync_threads();
    let mut i = grid_1d();
    while i < values.len() {
        atomic_add(local, (values[i] % 64) as usize, 1u32);
        i += gridsize_1d();
    }
    sync_threads();
    if tid < 64 {
        atomic_add(bins, tid, local[tid]);
    }
}

pub fn case_histogram(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(10_000..100_000);
    let values: Vec<u32> = (0..n).map(|_| r.random_range(0..1_000_000)).collect();
    let dv = dev.to_device(&values)?;
    let mut want = vec![0u32; 64];
    for v in &values {
        want[(v % 64) as usize] += 1;
    }
    let mut bins = dev.zeros::<u32>(64)?;
    launch!(histogram_global[blocks(n, 256), 256](&dv, &mut bins))?;
    check(&mut out, "global", &bins.to_host()?, &want, 0.0)?;
    let mut bins = dev.zeros::<u32>(64)?;
    launch!(histogram_shared[16, 128](&dv, &mut bins))?;
    check(&mut out, "shared", &bins.to_host()?, &want, 0.0)?;
    Ok(out)
}

// The matmul example's kernel (Numba's `fast_matmul` algorithm), checked here on sizes
// that are not multiples of the tile.
#[allow(dead_code)]
#[path = "../../examples/matmul.rs"]
mod matmul_example;
pub use matmul_example::matmul as matmul_tiled;

pub fn case_matmul(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (m, k, n) = (
        r.random_range(20..70),
        r.random_range(20..70),
        r.random_range(20..70),
    );
    let a = uniform_f32(&mut r, m * k, -1.0, 1.0);
    let b = uniform_f32(&mut r, k * n, -1.0, 1.0);
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = poisoned(dev, m * n, f32::NAN)?;
    let grid = (n.div_ceil(16), m.div_ceil(16));
    launch!(matmul_tiled[grid, (16, 16)](&da, &db, &mut dc, m, k, n))?;
    let mut want = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
            want[i * n + j] = s as f32;
        }
    }
    check(&mut out, "c", &dc.to_host()?, &want, 1e-5)?;
    Ok(out)
}

#[gpu_kernel]
pub fn barrier_votes(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    let v = x[i];
    let count = sync_threads_count(v > 0);
    let all = sync_threads_and(v > -50);
    let any = sync_threads_or(v > 45);
    if thread_idx().x == 0 {
        let b = block_idx().x as usize;
        out[b * 3] = count;
        out[b * 3 + 1] = all as i32;
        out[b * 3 + 2] = any as i32;
    }
}

/// Reverse each block's slice through dynamic shared memory sized by the launch.
#[gpu_kernel]
pub fn reverse_blocks(x: &[f32], y: &mut [f32]) {
    let mut buf = dynamic_shared_array::<f32>();
    let t = thread_idx().x as usize;
    let width = block_dim().x as usize;
    let i = grid_1d();
    buf[t] = x[i];
    sync_threads();
    y[i] = buf[width - 1 - t] + buf.len() as f32 * 0.0;
}

/// A per-thread sorting network on a local array.
#[gpu_kernel]
pub fn local_sort(x: &[i32], y: &mut [i32]) {
    let i = grid_1d();
    if i * 8 + 8 <= x.len() {
        let mut v = [0i32; 8];
        for k in 0..8 {
            v[k] = x[i * 8 + k];
        }
        for a in 0..8 {
            for b in 0..7 - a {
                if v[b] > v[b + 1] {
                    let t = v[b];
                    v[b] = v[b + 1];
                    v[b + 1] = t;
                }
            }
        }
        let mut grid = [[0i32; 2]; 4];
        for k in 0..8 {
            grid[k / 2][k % 2] = v[k];
        }
        for k in 0..8 {
            y[i * 8 + k] = grid[k / 2][k % 2];
        }
    }
}

pub fn case_block_misc(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (nb, bs) = (6usize, 96usize);
    let x: Vec<i32> = (0..nb * bs).map(|_| r.random_range(-50..50)).collect();
    let dx = dev.to_device(&x)?;
    let mut d = poisoned(dev, nb * 3, i32::MIN)?;
    launch!(barrier_votes[nb, bs](&dx, &mut d))?;
    let mut want = Vec::new();
    for b in x.chunks(bs) {
        want.push(b.iter().filter(|&&v| v > 0).count() as i32);
        want.push(b.iter().all(|&v| v > -50) as i32);
        want.push(b.iter().any(|&v| v > 45) as i32);
    }
    check(&mut out, "votes", &d.to_host()?, &want, 0.0)?;

    let xf = uniform_f32(&mut r, nb * bs, -5.0, 5.0);
    let dxf = dev.to_device(&xf)?;
    let mut dy = poisoned(dev, nb * bs, f32::NAN)?;
    let stream = dev.new_stream()?;
    launch!(reverse_blocks[nb, bs, &stream, bs * 4](&dxf, &mut dy))?;
    stream.synchronize()?;
    let want: Vec<f32> = xf
        .chunks(bs)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    check(&mut out, "reverse", &dy.to_host()?, &want, 0.0)?;

    let m = 200;
    let xs: Vec<i32> = (0..m * 8).map(|_| r.random_range(-1000..1000)).collect();
    let dxs = dev.to_device(&xs)?;
    let mut dys = poisoned(dev, m * 8, i32::MIN)?;
    launch!(local_sort[blocks(m, 64), 64](&dxs, &mut dys))?;
    let want: Vec<i32> = xs
        .chunks(8)
        .flat_map(|c| {
            let mut c = c.to_vec();
            c.sort();
            c
        })
        .collect();
    check(&mut out, "sorted", &dys.to_host()?, &want, 0.0)?;
    Ok(out)
}

/// `load4`/`store4` on shared arrays: each block of 64 threads moves 256 values into a
/// static shared tile four at a time, then writes them out reversed by vectors; the same
/// through dynamic shared memory for `u32`.
#[gpu_kernel]
pub fn shared_vectors(x: &[f32], y: &mut [f32], u: &[u32], w: &mut [u32]) {
    let mut tile = shared_array::<f32, 256>();
    let scratch = dynamic_shared_array::<u32>();
    let t = thread_idx().x as usize;
    let v = block_idx().x as usize * 64 + t;
    if v < x.len() / 4 && v < y.len() / 4 && t < 64 {
        let a = load4(x, v);
        store4(tile, t, a[0], a[1], a[2] * 2.0, a[3]);
    }
    if v < u.len() / 4 && t < scratch.len() / 4 {
        let b = load4(u, v);
        store4(scratch, t, b[3], b[2], b[1], b[0] ^ 0xff);
    }
    sync_threads();
    if v < x.len() / 4 && v < y.len() / 4 && t < 64 {
        let c = load4(tile, 63 - t);
        store4(y, v, c[0] + c[3], c[1], c[2], c[3]);
    }
    if v < u.len() / 4 && v < w.len() / 4 && t < scratch.len() / 4 {
        let d = load4(scratch, t);
        store4(w, v, d[0], d[1] + 1, d[2], d[3]);
    }
}

/// A vector store past a shared tile of 256 (vector `at` from the host): reported.
#[gpu_kernel]
pub fn shared_vector_past(y: &mut [f32], at: usize) {
    let mut tile = shared_array::<f32, 256>();
    let t = thread_idx().x as usize;
    if t < 64 {
        store4(tile, t, 1.0, 2.0, 3.0, 4.0);
    }
    sync_threads();
    if t == 0 && y.len() >= 4 {
        store4(tile, at, 5.0, 6.0, 7.0, 8.0);
        let v = load4(tile, 0);
        store4(y, 0, v[0], v[1], v[2], v[3]);
    }
}

/// A vector store whose value reads past `a` and whose vector is past the tile: the read
/// is evaluated first (as Rust evaluates a call's arguments) and reported; a load at the
/// largest index reports it as the simulator does.
#[gpu_kernel]
pub fn shared_vector_faults(a: &[f32], y: &mut [f32], at: usize, j: usize, far: usize) {
    let tile = shared_array::<f32, 8>();
    if thread_idx().x == 0 && y.len() >= 4 {
        if far == 0 {
            store4(tile, at, a[j], 0.0, 0.0, 0.0);
        } else {
            let v = load4(tile, far);
            store4(y, 0, v[0], v[1], v[2], v[3]);
        }
    }
}

pub fn case_shared_vectors(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let blocks = r.random_range(1..9);
    let n = blocks * 256;
    let x = uniform_f32(&mut r, n, -1.0, 1.0);
    let u: Vec<u32> = (0..n).map(|_| r.random()).collect();
    let (dx, du) = (dev.to_device(&x)?, dev.to_device(&u)?);
    let mut dy = poisoned(dev, n, f32::NAN)?;
    let mut dw = poisoned(dev, n, 7u32)?;
    let stream = dev.new_stream()?;
    launch!(shared_vectors[blocks, 64, &stream, 1024](&dx, &mut dy, &du, &mut dw))?;
    let (mut want_y, mut want_w) = (vec![0.0f32; n], vec![0u32; n]);
    for b in 0..blocks {
        for t in 0..64 {
            // The tile's vector 63 - t holds block b's vector 63 - t, its third doubled.
            let s = (b * 64 + 63 - t) * 4;
            let c = [x[s], x[s + 1], x[s + 2] * 2.0, x[s + 3]];
            let o = (b * 64 + t) * 4;
            want_y[o..o + 4].copy_from_slice(&[c[0] + c[3], c[1], c[2], c[3]]);
            let d = [u[o + 3], u[o + 2], u[o + 1], u[o] ^ 0xff];
            want_w[o..o + 4].copy_from_slice(&[d[0], d[1].wrapping_add(1), d[2], d[3]]);
        }
    }
    let (got_y, got_w) = (f64s(&dy.to_host()?), f64s(&dw.to_host()?));
    compare("y", &got_y, &f64s(&want_y), 0.0)?;
    compare("w", &got_w, &f64s(&want_w), 0.0)?;
    // What this backend computed, for the GPU-simulator comparison.
    out.push(("y", got_y));
    out.push(("w", got_w));
    // Out of range: the last element of the vector is reported, nothing written past
    // the tile, and the device goes on.
    let mut y4 = poisoned(dev, 4, f32::NAN)?;
    super::checks::expect_violation(
        launch!(shared_vector_past[1, 64](&mut y4, 64)).and_then(|()| dev.synchronize()),
        "shared_vector_past",
        ("tile (shared array)", 259, 256),
    )?;
    let a = dev.to_device(&[1.0f32; 5])?;
    super::checks::expect_violation(
        launch!(shared_vector_faults[1, 32](&a, &mut y4, 5, 5, 0)).and_then(|()| dev.synchronize()),
        "shared_vector_faults",
        ("a", 5, 5),
    )?;
    super::checks::expect_violation(
        launch!(shared_vector_faults[1, 32](&a, &mut y4, 0, 0, usize::MAX))
            .and_then(|()| dev.synchronize()),
        "shared_vector_faults",
        ("tile (shared array)", usize::MAX, 8),
    )?;
    launch!(shared_vector_past[1, 64](&mut y4, 1))?;
    compare(
        "tile after a store in range",
        &f64s(&y4.to_host()?),
        &[1.0, 2.0, 3.0, 4.0],
        0.0,
    )?;
    Ok(out)
}
