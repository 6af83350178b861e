//! Sum of an array in two passes: each block reduces its share in shared memory and with
//! warp shuffles to one partial sum; a second launch reduces the partial sums.

use gpu_runtime::prelude::*;

/// One partial sum per block, from a grid-stride loop, a shared-memory tree and shuffles.
/// Launch with 256 threads per block.
#[gpu_kernel]
pub fn block_sum(x: &[f32], partial: &mut [f32]) {
    let mut cache = shared_array::<f32, 256>();
    let tid = thread_idx().x as usize;
    let mut acc = 0.0f32;
    let mut i = grid_1d();
    while i < x.len() {
        acc += x[i];
        i += gridsize_1d();
    }
    cache[tid] = acc;
    sync_threads();
    let mut half = 128usize;
    while half >= 32 {
        if tid < half {
            cache[tid] += cache[tid + half];
        }
        sync_threads();
        half /= 2;
    }
    if tid < 32 {
        let mut v = cache[tid];
        let mut offset = 16u32;
        while offset > 0 {
            v += shfl_down_sync(0xffff_ffff, v, offset);
            offset /= 2;
        }
        if tid == 0 {
            partial[block_idx().x as usize] = v;
        }
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
    let n = 1_000_003;
    let host: Vec<f32> = (0..n)
        .map(|i| ((i % 1000) as f32 - 499.5) / 500.0)
        .collect();
    let x = dev.to_device(&host)?;
    let blocks = 120;
    let mut partial = dev.zeros::<f32>(blocks)?;
    let mut total = dev.zeros::<f32>(1)?;
    launch!(block_sum[blocks, 256](&x, &mut partial))?;
    launch!(block_sum[1, 256](&partial, &mut total))?;
    let got = total.to_host()?[0] as f64;
    let want: f64 = host.iter().map(|&v| v as f64).sum();
    if (got - want).abs() > 1e-2 {
        eprintln!("sum is {got}, want {want}");
        std::process::exit(1);
    }
    println!(
        "sum of {n} values: {got:.4} (host: {want:.4}) (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
