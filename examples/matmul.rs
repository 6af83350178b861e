//! Matrix product with 16 x 16 tiles in shared memory (the algorithm of Numba's documented
//! `fast_matmul`, for any shapes), on sizes that are not multiples of 16, checked against
//! the host. The tile size is a module constant, used in the kernel as in the host code.

use gpu_runtime::prelude::*;

/// The tiles' size: threads per block on each axis.
pub const TILE: usize = 16;

/// `c = a * b` for row-major `a` (m x k) and `b` (k x n).
#[gpu_kernel]
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    let mut sa = shared_array_2d::<f32, TILE, TILE>();
    let mut sb = shared_array_2d::<f32, TILE, TILE>();
    let (col, row) = grid_2d();
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let mut acc = 0.0f32;
    for t in 0..(k + TILE - 1) / TILE {
        // Stage one tile of each input; threads outside the matrix stage zeros.
        let (ka, kb) = (t * TILE + tx, t * TILE + ty);
        sa[(ty, tx)] = if row < m && ka < k {
            a[row * k + ka]
        } else {
            0.0
        };
        sb[(ty, tx)] = if kb < k && col < n {
            b[kb * n + col]
        } else {
            0.0
        };
        sync_threads();
        for j in 0..TILE {
            acc += sa[(ty, j)] * sb[(j, tx)];
        }
        sync_threads();
    }
    if row < m && col < n {
        c[row * n + col] = acc;
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let (m, k, n) = (333, 250, 123);
    let a: Vec<f32> = (0..m * k)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
        .collect();
    let b: Vec<f32> = (0..k * n)
        .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
        .collect();
    let da = dev.to_device(&a)?;
    let db = dev.to_device(&b)?;
    let mut dc = dev.zeros::<f32>(m * n)?;
    let grid = (n.div_ceil(TILE), m.div_ceil(TILE));
    launch!(matmul[grid, (TILE, TILE)](&da, &db, &mut dc, m, k, n))?;
    let c = dc.to_host()?;
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let want: f64 = (0..k)
                .map(|p| a[i * k + p] as f64 * b[p * n + j] as f64)
                .sum();
            worst = worst.max((c[i * n + j] as f64 - want).abs() / want.abs().max(1.0));
        }
    }
    if worst > 1e-5 {
        eprintln!("matmul is off: worst relative error {worst:.1e}");
        std::process::exit(1);
    }
    println!(
        "{m}x{k} * {k}x{n} correct, worst relative error {worst:.1e} (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
