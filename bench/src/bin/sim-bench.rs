//! The CPU simulator's speed (P9): the matmul example's kernel (Numba's `fast_matmul`
//! algorithm, 16 x 16 shared tiles, two barriers per tile) and the reduce example's
//! two-pass sum (shared memory, barriers, warp shuffles), each checked against the host.
//! `bench/sim.sh` runs this beside Numba's CUDA simulator on the same kernels.
//!
//! `sim-bench [small|large|all]`: `small` is the matmul at 100x77x55 and the sum of 70,000
//! elements (the sizes Numba's simulator is timed on), `large` the matmul at 1000x777x555.
//! Prints `name value` lines: seconds per launch (the median of 5 for the small sizes, one
//! launch for the large one) and the simulator's worker count.

use std::time::Instant;

use gpu_runtime::prelude::*;

#[allow(dead_code)]
#[path = "../../../examples/matmul.rs"]
mod matmul_example;
#[allow(dead_code)]
#[path = "../../../examples/reduce.rs"]
mod reduce_example;

use matmul_example::{matmul, TILE};
use reduce_example::block_sum;

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "all".into());
    let result = match what.as_str() {
        "small" => small(),
        "large" => large(),
        "all" => small().and_then(|()| large()),
        _ => {
            eprintln!("usage: sim-bench [small|large|all]");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("sim-bench {what}: {e}");
        std::process::exit(1);
    }
}

/// Inputs as the Numba side makes them (`bench/sim_peer.py`): a fixed pattern.
fn pattern(len: usize, mul: usize, modulo: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * mul % modulo) as f32 - (modulo / 2) as f32) / (modulo / 2) as f32)
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One matmul launch of `m x k` by `k x n`, checked; the seconds it took.
fn matmul_seconds(dev: &Device, m: usize, k: usize, n: usize) -> Result<f64, GpuError> {
    let (a, b) = (pattern(m * k, 37, 101), pattern(k * n, 53, 97));
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = dev.to_device(&vec![f32::NAN; m * n])?;
    let grid = (n.div_ceil(TILE), m.div_ceil(TILE));
    let t = Instant::now();
    launch!(matmul[grid, (TILE, TILE)](&da, &db, &mut dc, m, k, n))?;
    dev.synchronize()?;
    let seconds = t.elapsed().as_secs_f64();
    let c = dc.to_host()?;
    for i in (0..m).step_by(m.div_ceil(50)) {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
            let got = c[i * n + j] as f64;
            if (got - want).abs() > 1e-4 * want.abs().max(1.0) {
                eprintln!("matmul {m}x{k}x{n}: c[{i}, {j}] = {got}, expected {want}");
                std::process::exit(1);
            }
        }
    }
    Ok(seconds)
}

/// The reduce example's two passes over `len` elements, checked; the seconds they took.
fn sum_seconds(dev: &Device, len: usize) -> Result<f64, GpuError> {
    let x = pattern(len, 29, 89);
    let dx = dev.to_device(&x)?;
    let blocks = len.div_ceil(256).min(1024);
    let mut partial = dev.to_device(&vec![f32::NAN; blocks])?;
    let mut total = dev.to_device(&[f32::NAN])?;
    let t = Instant::now();
    launch!(block_sum[blocks, 256](&dx, &mut partial))?;
    launch!(block_sum[1, 256](&partial, &mut total))?;
    dev.synchronize()?;
    let seconds = t.elapsed().as_secs_f64();
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    let got = total.to_host()?[0] as f64;
    if (got - want).abs() > 1e-3 * want.abs().max(1.0) {
        eprintln!("sum of {len}: {got}, expected {want}");
        std::process::exit(1);
    }
    Ok(seconds)
}

fn small() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mm: Vec<f64> = (0..5)
        .map(|_| matmul_seconds(&dev, 100, 77, 55))
        .collect::<Result<_, _>>()?;
    println!("ours_sim_matmul_100x77x55_s {:.4}", median(mm));
    let sum: Vec<f64> = (0..5)
        .map(|_| sum_seconds(&dev, 70_000))
        .collect::<Result<_, _>>()?;
    println!("ours_sim_sum_70000_s {:.4}", median(sum));
    Ok(())
}

fn large() -> Result<(), GpuError> {
    let dev = Device::simulator();
    println!(
        "ours_sim_matmul_1000x777x555_s {:.3}",
        matmul_seconds(&dev, 1000, 777, 555)?
    );
    Ok(())
}
