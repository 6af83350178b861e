//! Numba's documented `fast_matmul`, ported line by line: `TPB` is a module constant, as
//! in the Numba original, used in the kernel body and as the shared arrays' sizes.
//!
//! ```python
//! TPB = 16
//!
//! @cuda.jit
//! def fast_matmul(A, B, C):
//!     sA = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
//!     sB = cuda.shared.array(shape=(TPB, TPB), dtype=float32)
//!     x, y = cuda.grid(2)
//!     tx = cuda.threadIdx.x
//!     ty = cuda.threadIdx.y
//!     bpg = cuda.gridDim.x
//!     tmp = float32(0.)
//!     for i in range(bpg):
//!         sA[ty, tx] = 0
//!         sB[ty, tx] = 0
//!         if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
//!             sA[ty, tx] = A[y, tx + i * TPB]
//!         if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
//!             sB[ty, tx] = B[ty + i * TPB, x]
//!         cuda.syncthreads()
//!         for j in range(TPB):
//!             tmp += sA[ty, j] * sB[j, tx]
//!         cuda.syncthreads()
//!     if y < C.shape[0] and x < C.shape[1]:
//!         C[y, x] = tmp
//! ```
//!
//! As in Numba, the tiles cover the product's inner dimension only when the grid's x
//! extent does, which holds for square matrices (the example's case).

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// Threads per block on each axis, and the tiles' size.
pub const TPB: usize = 16;

/// `c = a * b` for square `a`, `b` and `c`, tile by tile through shared memory.
#[gpu_kernel]
pub fn fast_matmul(a: &DeviceArray2<f32>, b: &DeviceArray2<f32>, c: &mut DeviceArray2<f32>) {
    let mut sa = shared_array_2d::<f32, TPB, TPB>();
    let mut sb = shared_array_2d::<f32, TPB, TPB>();
    let (x, y) = grid_2d();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let bpg = grid_dim().x as usize;
    let mut tmp = 0.0f32;
    for i in 0..bpg {
        sa[(ty, tx)] = 0.0;
        sb[(ty, tx)] = 0.0;
        if y < a.rows() && tx + i * TPB < a.cols() {
            sa[(ty, tx)] = a[(y, tx + i * TPB)];
        }
        if x < b.cols() && ty + i * TPB < b.rows() {
            sb[(ty, tx)] = b[(ty + i * TPB, x)];
        }
        sync_threads();
        for j in 0..TPB {
            tmp += sa[(ty, j)] * sb[(j, tx)];
        }
        sync_threads();
    }
    if y < c.rows() && x < c.cols() {
        c[(y, x)] = tmp;
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
    // Not a multiple of TPB; smaller on the simulator, which runs every thread on the CPU.
    let n = match dev.backend() {
        Backend::Cuda => 1000,
        Backend::Simulator => 100,
    };
    let a: Vec<f32> = (0..n * n)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
        .collect();
    let b: Vec<f32> = (0..n * n)
        .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
        .collect();
    let da = dev.to_device_2d(&a, (n, n))?;
    let db = dev.to_device_2d(&b, (n, n))?;
    let mut dc = dev.zeros_2d::<f32>((n, n))?;
    let blocks = n.div_ceil(TPB);
    launch!(fast_matmul[(blocks, blocks), (TPB, TPB)](&da, &db, &mut dc))?;
    let c = dc.to_host()?;
    let mut worst = 0.0f64;
    for i in 0..n {
        for j in 0..n {
            let want: f64 = (0..n)
                .map(|p| a[i * n + p] as f64 * b[p * n + j] as f64)
                .sum();
            worst = worst.max((c[i * n + j] as f64 - want).abs() / want.abs().max(1.0));
        }
    }
    if worst > 1e-5 {
        eprintln!("fast_matmul is off: worst relative error {worst:.1e}");
        std::process::exit(1);
    }
    println!(
        "{n}x{n} * {n}x{n} with TPB = {TPB} correct, worst relative error {worst:.1e} (backend: \
         {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
