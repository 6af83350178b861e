//! Kernels whose threads cooperate: shared memory, barriers, atomics, warp functions and
//! local arrays, each checked against a CPU reference.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::{blocks, check, err, poisoned, rng, uniform_f32, Outputs};

// ----- block reduction: shared memory, barriers, warp shuffles, two passes --------------

// The reduce example's kernel, checked here on fresh random inputs.
#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce_example;
pub use reduce_example::block_sum;

pub fn case_reduce(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(50_000..300_000);
    let x = uniform_f32(&mut r, n, -1.0, 1.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let grid = 64usize;
    let mut partial = poisoned(dev, grid, f32::NAN)?;
    launch!(block_sum[grid, 256](&dx, &mut partial)).map_err(err)?;
    let mut total = poisoned(dev, 1, f32::NAN)?;
    launch!(block_sum[1, 256](&partial, &mut total)).map_err(err)?;
    let got = total.to_host().map_err(err)?[0] as f64;
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    // f32 partial sums of ~1e5 terms of magnitude <= 1.
    if (got - want).abs() > 1e-3 * (n as f64).sqrt() {
        return Err(format!("sum {got}, want {want}"));
    }
    out.push(("sum", vec![got]));
    Ok(out)
}

// ----- histogram: atomics on global and shared memory -----------------------------------

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

pub fn case_histogram(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(10_000..100_000);
    let values: Vec<u32> = (0..n).map(|_| r.random_range(0..1_000_000)).collect();
    let dv = dev.to_device(&values).map_err(err)?;
    let mut want = vec![0u32; 64];
    for v in &values {
        want[(v % 64) as usize] += 1;
    }
    let mut bins = dev.zeros::<u32>(64).map_err(err)?;
    launch!(histogram_global[blocks(n, 256), 256](&dv, &mut bins)).map_err(err)?;
    check(
        &mut out,
        "global",
        &bins.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    let mut bins = dev.zeros::<u32>(64).map_err(err)?;
    launch!(histogram_shared[16, 128](&dv, &mut bins)).map_err(err)?;
    check(
        &mut out,
        "shared",
        &bins.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    Ok(out)
}

// ----- tiled matmul: 2-D shared arrays (Numba's fast_matmul) ----------------------------

// The matmul example's kernel (Numba's `fast_matmul` algorithm), checked here on sizes
// that are not multiples of the tile.
#[allow(dead_code)]
#[path = "../../examples/matmul.rs"]
mod matmul_example;
pub use matmul_example::matmul as matmul_tiled;

pub fn case_matmul(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (m, k, n) = (
        r.random_range(20..70),
        r.random_range(20..70),
        r.random_range(20..70),
    );
    let a = uniform_f32(&mut r, m * k, -1.0, 1.0);
    let b = uniform_f32(&mut r, k * n, -1.0, 1.0);
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut dc = poisoned(dev, m * n, f32::NAN)?;
    let grid = (n.div_ceil(16), m.div_ceil(16));
    launch!(matmul_tiled[grid, (16, 16)](&da, &db, &mut dc, m, k, n)).map_err(err)?;
    let mut want = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
            want[i * n + j] = s as f32;
        }
    }
    check(&mut out, "c", &dc.to_host().map_err(err)?, &want, 1e-5)?;
    Ok(out)
}

// ----- warp functions -------------------------------------------------------------------

#[gpu_kernel]
pub fn warp_ops(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    let lane = lane_id();
    let v = x[i];
    let o = i * 9;
    out[o] = shfl_sync(0xffff_ffff, v, (lane + 3) % 32);
    out[o + 1] = shfl_up_sync(0xffff_ffff, v, 2);
    out[o + 2] = shfl_down_sync(0xffff_ffff, v, 5);
    out[o + 3] = shfl_xor_sync(0xffff_ffff, v, 7);
    out[o + 4] = ballot_sync(0xffff_ffff, v > 0) as i32;
    out[o + 5] = any_sync(0xffff_ffff, v > 90) as i32 + 2 * all_sync(0xffff_ffff, v > -100) as i32;
    out[o + 6] = eq_sync(0xffff_ffff, v / 1000) as i32;
    out[o + 7] = lane as i32 + 100 * warp_size() as i32;
    out[o + 8] = active_mask() as i32;
}

/// Half-warp sums with a partial mask, then a block barrier: lanes 16-31 never shuffle.
#[gpu_kernel]
pub fn half_warp_sum(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    let lane = lane_id();
    let mut v = x[i];
    if lane < 16 {
        let mut offset = 8u32;
        while offset > 0 {
            v += shfl_xor_sync(0xffff, v, offset);
            offset /= 2;
        }
    }
    sync_threads();
    out[i] = v;
}

pub fn case_warp(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 128; // 4 warps in blocks of 64
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-99..100)).collect();
    let dx = dev.to_device(&x).map_err(err)?;
    let mut d = poisoned(dev, n * 9, i32::MIN)?;
    launch!(warp_ops[2, 64](&dx, &mut d)).map_err(err)?;
    let mut want = Vec::new();
    for i in 0..n {
        let base = i - i % 32;
        let lane = i % 32;
        let w = &x[base..base + 32];
        let ballot = (0..32)
            .filter(|&l| w[l] > 0)
            .fold(0u32, |a, l| a | (1 << l)) as i32;
        let any = w.iter().any(|&v| v > 90) as i32;
        let all = w.iter().all(|&v| v > -100) as i32;
        want.extend([
            w[(lane + 3) % 32],
            if lane >= 2 { w[lane - 2] } else { w[lane] },
            if lane + 5 < 32 { w[lane + 5] } else { w[lane] },
            w[lane ^ 7],
            ballot,
            any + 2 * all,
            1, // every value / 1000 is 0
            lane as i32 + 3200,
            -1, // all 32 lanes active
        ]);
    }
    check(&mut out, "warp", &d.to_host().map_err(err)?, &want, 0.0)?;
    let mut h = poisoned(dev, n, i32::MIN)?;
    launch!(half_warp_sum[2, 64](&dx, &mut h)).map_err(err)?;
    let want: Vec<i32> = (0..n)
        .map(|i| {
            let base = i - i % 32;
            if i % 32 < 16 {
                x[base..base + 16].iter().sum()
            } else {
                x[i]
            }
        })
        .collect();
    check(
        &mut out,
        "half-warp",
        &h.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    Ok(out)
}

// ----- atomics of every kind --------------------------------------------------------------

#[gpu_kernel]
pub fn atomics_all(
    x: &[i32],
    u: &[u32],
    f: &[f64],
    ints: &mut [i32],
    uints: &mut [u32],
    floats: &mut [f64],
    big: &mut [i64],
) {
    let i = grid_1d();
    if i < x.len() {
        atomic_add(ints, 0, x[i]);
        atomic_sub(ints, 1, x[i]);
        atomic_min(ints, 2, x[i]);
        atomic_max(ints, 3, x[i]);
        atomic_and(uints, 0, u[i]);
        atomic_or(uints, 1, u[i]);
        atomic_xor(uints, 2, u[i]);
        atomic_inc(uints, 3, 1000);
        atomic_dec(uints, 4, 1_000_000);
        atomic_add(floats, 0, f[i]);
        atomic_add(big, 0, x[i] as i64 * 1_000_000);
        // A counter built from compare-and-swap.
        let mut old = uints[5];
        loop {
            let seen = atomic_cas(uints, 5, old, old + 2);
            if seen == old {
                break;
            }
            old = seen;
        }
        // Everyone swaps in its index; the final value is some thread's.
        atomic_exch(ints, 4, i as i32);
    }
}

pub fn case_atomics(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(500..3_000);
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
    let u: Vec<u32> = (0..n).map(|_| r.random()).collect();
    // Multiples of 1/64 sum exactly in any order.
    let f: Vec<f64> = (0..n)
        .map(|_| r.random_range(-640..640) as f64 / 64.0)
        .collect();
    let (dx, du, df) = (
        dev.to_device(&x).map_err(err)?,
        dev.to_device(&u).map_err(err)?,
        dev.to_device(&f).map_err(err)?,
    );
    let mut ints = dev
        .to_device(&[0, 0, i32::MAX, i32::MIN, -1])
        .map_err(err)?;
    let mut uints = dev.to_device(&[u32::MAX, 0, 0, 0, 5, 0]).map_err(err)?;
    let mut floats = dev.to_device(&[0.5f64]).map_err(err)?;
    let mut big = dev.to_device(&[7i64]).map_err(err)?;
    launch!(atomics_all[blocks(n, 128), 128](&dx, &du, &df, &mut ints, &mut uints, &mut floats, &mut big)).map_err(err)?;
    let gi = ints.to_host().map_err(err)?;
    let sum: i32 = x.iter().sum();
    let want_i = [
        sum,
        -sum,
        *x.iter().min().unwrap(),
        *x.iter().max().unwrap(),
    ];
    check(&mut out, "ints", &gi[..4], &want_i, 0.0)?;
    if !(0..n as i32).contains(&gi[4]) {
        return Err(format!("atomic_exch left {}, not a thread index", gi[4]));
    }
    let gu = uints.to_host().map_err(err)?;
    let and = u.iter().fold(u32::MAX, |a, v| a & v);
    let or = u.iter().fold(0, |a, v| a | v);
    let xor = u.iter().fold(0, |a, v| a ^ v);
    // inc wraps to 0 after reaching 1000; dec from 5 wraps to the limit after 0.
    let inc = (0..n).fold(0u32, |o, _| if o >= 1000 { 0 } else { o + 1 });
    let dec = (0..n).fold(5u32, |o, _| {
        if o == 0 || o > 1_000_000 {
            1_000_000
        } else {
            o - 1
        }
    });
    let want_u = [and, or, xor, inc, dec, 2 * n as u32];
    check(&mut out, "uints", &gu, &want_u, 0.0)?;
    let want_f = 0.5 + f.iter().sum::<f64>();
    check(
        &mut out,
        "f64 add",
        &floats.to_host().map_err(err)?,
        &[want_f],
        0.0,
    )?;
    let want_big = 7 + x.iter().map(|&v| v as i64 * 1_000_000).sum::<i64>();
    let gb = big.to_host().map_err(err)?;
    if gb[0] != want_big {
        return Err(format!("i64 add: {} != {want_big}", gb[0]));
    }
    out.push(("i64", vec![gb[0] as f64]));
    Ok(out)
}

// ----- barrier reductions, dynamic shared memory, local arrays --------------------------

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

pub fn case_block_misc(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (nb, bs) = (6usize, 96usize);
    let x: Vec<i32> = (0..nb * bs).map(|_| r.random_range(-50..50)).collect();
    let dx = dev.to_device(&x).map_err(err)?;
    let mut d = poisoned(dev, nb * 3, i32::MIN)?;
    launch!(barrier_votes[nb, bs](&dx, &mut d)).map_err(err)?;
    let mut want = Vec::new();
    for b in x.chunks(bs) {
        want.push(b.iter().filter(|&&v| v > 0).count() as i32);
        want.push(b.iter().all(|&v| v > -50) as i32);
        want.push(b.iter().any(|&v| v > 45) as i32);
    }
    check(&mut out, "votes", &d.to_host().map_err(err)?, &want, 0.0)?;

    let xf = uniform_f32(&mut r, nb * bs, -5.0, 5.0);
    let dxf = dev.to_device(&xf).map_err(err)?;
    let mut dy = poisoned(dev, nb * bs, f32::NAN)?;
    let stream = dev.new_stream().map_err(err)?;
    launch!(reverse_blocks[nb, bs, &stream, bs * 4](&dxf, &mut dy)).map_err(err)?;
    stream.synchronize().map_err(err)?;
    let want: Vec<f32> = xf
        .chunks(bs)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    check(&mut out, "reverse", &dy.to_host().map_err(err)?, &want, 0.0)?;

    let m = 200;
    let xs: Vec<i32> = (0..m * 8).map(|_| r.random_range(-1000..1000)).collect();
    let dxs = dev.to_device(&xs).map_err(err)?;
    let mut dys = poisoned(dev, m * 8, i32::MIN)?;
    launch!(local_sort[blocks(m, 64), 64](&dxs, &mut dys)).map_err(err)?;
    let want: Vec<i32> = xs
        .chunks(8)
        .flat_map(|c| {
            let mut c = c.to_vec();
            c.sort();
            c
        })
        .collect();
    check(&mut out, "sorted", &dys.to_host().map_err(err)?, &want, 0.0)?;
    Ok(out)
}

// ----- vector loads -----------------------------------------------------------------------

/// vec_add four elements at a time; the last thread adds the tail one by one.
#[gpu_kernel]
pub fn vec_add4<T: Num>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid_1d();
    let full = a.len() / 4;
    if i < full {
        let x = load4(a, i);
        let y = load4(b, i);
        store4(c, i, x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]);
    } else if i == full {
        for k in 4 * full..a.len() {
            c[k] = a[k] + b[k];
        }
    }
}

pub fn case_vector(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1_000..50_000);
    let a = uniform_f32(&mut r, n, -100.0, 100.0);
    let b = uniform_f32(&mut r, n, -100.0, 100.0);
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut dc = poisoned(dev, n, f32::NAN)?;
    launch!(vec_add4.forall(n / 4 + 1)(&da, &db, &mut dc)).map_err(err)?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "f32", &dc.to_host().map_err(err)?, &want, 0.0)?;
    let a: Vec<i64> = (0..n)
        .map(|_| r.random_range(-1_000_000..1_000_000))
        .collect();
    let b: Vec<i64> = (0..n)
        .map(|_| r.random_range(-1_000_000..1_000_000))
        .collect();
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut dc = poisoned(dev, n, i64::MIN)?;
    launch!(vec_add4.forall(n / 4 + 1)(&da, &db, &mut dc)).map_err(err)?;
    let want: Vec<i64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let got = dc.to_host().map_err(err)?;
    if got != want {
        return Err("i64 vector add differs".to_owned());
    }
    out.push(("i64", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

// ----- two-dimensional array parameters ---------------------------------------------------

/// A 5-point average on 2-D arrays, and per-column sums through 2-D atomics.
#[gpu_kernel]
pub fn smooth2d(u: &Array2<f32>, out: &mut Array2<f32>, sums: &mut Array2<f32>) {
    let (j, i) = grid_2d();
    let (rows, cols) = (u.rows(), u.cols());
    if i < rows && j < cols {
        let mut acc = u[(i, j)];
        let mut n = 1.0f32;
        if i > 0 {
            acc += u[(i - 1, j)];
            n += 1.0;
        }
        if i + 1 < rows {
            acc += u[(i + 1, j)];
            n += 1.0;
        }
        if j > 0 {
            acc += u[(i, j - 1)];
            n += 1.0;
        }
        if j + 1 < cols {
            acc += u[(i, j + 1)];
            n += 1.0;
        }
        out[(i, j)] = acc / n;
        atomic_add(sums, (0, j), u[(i, j)]);
    }
}

pub fn case_array2(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (rows, cols) = (r.random_range(5..60), r.random_range(5..60));
    // Multiples of 1/16, so the atomic column sums are exact in any order.
    let u: Vec<f32> = (0..rows * cols)
        .map(|_| r.random_range(-160..160) as f32 / 16.0)
        .collect();
    let du = dev.to_device_2d(&u, rows, cols).map_err(err)?;
    let mut dout = dev
        .to_device_2d(&vec![f32::NAN; rows * cols], rows, cols)
        .map_err(err)?;
    let mut dsums = dev.zeros_2d::<f32>(1, cols).map_err(err)?;
    launch!(smooth2d[(cols.div_ceil(8), rows.div_ceil(8)), (8, 8)](&du, &mut dout, &mut dsums))
        .map_err(err)?;
    let at = |i: usize, j: usize| u[i * cols + j];
    let mut want = Vec::new();
    for i in 0..rows {
        for j in 0..cols {
            let mut acc = at(i, j);
            let mut n = 1.0f32;
            if i > 0 {
                acc += at(i - 1, j);
                n += 1.0;
            }
            if i + 1 < rows {
                acc += at(i + 1, j);
                n += 1.0;
            }
            if j > 0 {
                acc += at(i, j - 1);
                n += 1.0;
            }
            if j + 1 < cols {
                acc += at(i, j + 1);
                n += 1.0;
            }
            want.push(acc / n);
        }
    }
    check(
        &mut out,
        "smooth",
        &dout.to_host().map_err(err)?,
        &want,
        0.0,
    )?;
    let sums: Vec<f32> = (0..cols)
        .map(|j| (0..rows).map(|i| at(i, j)).sum())
        .collect();
    check(
        &mut out,
        "column sums",
        &dsums.to_host().map_err(err)?,
        &sums,
        0.0,
    )?;
    Ok(out)
}

// ----- cooperative launches: grid-wide barriers -------------------------------------------

/// Each thread reads what the mirror-image thread of the grid (in another block) wrote
/// before the grid barrier, twice, so the barrier is reused.
#[gpu_kernel]
pub fn grid_mirror(x: &[i32], scratch: &mut [i32], out: &mut [i32]) {
    let i = grid_1d();
    let n = gridsize_1d();
    scratch[i] = x[i] * 2;
    sync_grid();
    let first = scratch[n - 1 - i];
    sync_grid();
    scratch[i] = first + 1;
    sync_grid();
    out[i] = scratch[n - 1 - i];
}

pub fn case_cooperative(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (blocks_n, threads) = (8usize, 128usize);
    let n = blocks_n * threads;
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
    let dx = dev.to_device(&x).map_err(err)?;
    let mut scratch = dev.zeros::<i32>(n).map_err(err)?;
    let mut d = poisoned(dev, n, i32::MIN)?;
    launch!(grid_mirror[blocks_n, threads](&dx, &mut scratch, &mut d)).map_err(err)?;
    // out[i] = scratch2[n-1-i] = scratch1[i] + 1 = 2 * x[i] + 1
    let want: Vec<i32> = x.iter().map(|v| 2 * v + 1).collect();
    check(&mut out, "mirror", &d.to_host().map_err(err)?, &want, 0.0)?;
    // A grid that cannot be resident at once is refused before the launch (so the arrays
    // need not be large).
    let bx = dev.zeros::<i32>(4).map_err(err)?;
    let mut bs = dev.zeros::<i32>(4).map_err(err)?;
    let mut bo = dev.zeros::<i32>(4).map_err(err)?;
    match launch!(grid_mirror[1 << 20, 1024](&bx, &mut bs, &mut bo)) {
        Err(GpuError::InvalidLaunch { .. }) => {}
        other => return Err(format!("an oversized cooperative grid: {other:?}")),
    }
    Ok(out)
}

/// A 3-D neighbour difference along the last axis, on 3-D arrays with a 3-D grid.
#[gpu_kernel]
pub fn diff3d(v: &Array3<f64>, out: &mut Array3<f64>) {
    let (k, j, i) = grid_3d();
    let (d0, d1, d2) = (v.shape().0, v.shape().1, v.shape().2);
    if i < d0 && j < d1 && k < d2 {
        let next = if k + 1 < d2 { v[(i, j, k + 1)] } else { 0.0 };
        out[(i, j, k)] = next - v[(i, j, k)] + (v.len() as f64) * 0.0;
    }
}

pub fn case_array3(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let shape = (
        r.random_range(2..9),
        r.random_range(2..9),
        r.random_range(2..20),
    );
    let n = shape.0 * shape.1 * shape.2;
    let v: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let dv = dev.to_device_3d(&v, shape).map_err(err)?;
    let mut d = dev.to_device_3d(&vec![f64::NAN; n], shape).map_err(err)?;
    let grid = (
        shape.2.div_ceil(4),
        shape.1.div_ceil(4),
        shape.0.div_ceil(2),
    );
    launch!(diff3d[grid, (4, 4, 2)](&dv, &mut d)).map_err(err)?;
    let mut want = Vec::new();
    for i in 0..shape.0 {
        for j in 0..shape.1 {
            for k in 0..shape.2 {
                let at = |k: usize| v[(i * shape.1 + j) * shape.2 + k];
                let next = if k + 1 < shape.2 { at(k + 1) } else { 0.0 };
                want.push(next - at(k));
            }
        }
    }
    check(&mut out, "diff", &d.to_host().map_err(err)?, &want, 0.0)?;
    Ok(out)
}

// ----- 16-bit floats ----------------------------------------------------------------------

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
) -> Result<(), String> {
    let n = 1000;
    let x: Vec<T> = (0..n)
        .map(|_| T::from_f64(r.random_range(-4.0..4.0)))
        .collect();
    let y: Vec<T> = (0..n)
        .map(|_| T::from_f64(r.random_range(-4.0..4.0)))
        .collect();
    let (dx, dy) = (
        dev.to_device(&x).map_err(err)?,
        dev.to_device(&y).map_err(err)?,
    );
    let mut d = dev
        .to_device(&vec![T::from_f64(f64::NAN); n * 6])
        .map_err(err)?;
    let mut total = dev.zeros::<T>(1).map_err(err)?;
    launch!(half_ops[blocks(n, 128), 128](&dx, &dy, &mut d, &mut total)).map_err(err)?;
    let got = d.to_host().map_err(err)?;
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
            return Err(format!("{name}[{k}]: got {gf}, want {wf}"));
        }
    }
    out.push((name, got.iter().map(|v| v.to_f64()).collect()));
    // Adding one value n times in any order gives the same rounding sequence: the host's.
    let want_sum = (0..n)
        .fold(T::zero(), |acc, _| acc + T::from_f64(0.25))
        .to_f64();
    let sum = total.to_host().map_err(err)?[0].to_f64();
    if sum != want_sum {
        return Err(format!("{name} atomic sum {sum}, want {want_sum}"));
    }
    Ok(())
}

pub fn case_half(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    half_case::<f16>(dev, &mut r, &mut out, "f16")?;
    half_case::<bf16>(dev, &mut r, &mut out, "bf16")?;
    Ok(out)
}
