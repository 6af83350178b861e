//! The seed's program: `c[i] = a[i] + b[i]` for a million `f32`, checked on the host.
//!
//! Runs on the GPU where there is one and on the CPU simulator otherwise; either way the
//! last line says which. `GPU_RUNTIME_BACKEND=sim` forces the simulator.

use gpu_runtime::prelude::*;

#[gpu_kernel]
pub fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] + b[i];
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
    let n: usize = 1_000_000;
    let host_a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let host_b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();

    let dev = Device::gpu_or_simulator()?;
    let a = dev.to_device(&host_a)?;
    let b = dev.to_device(&host_b)?;
    let mut c = dev.zeros::<f32>(n)?;

    let threads = 256;
    let blocks = n.div_ceil(threads);
    launch!(vec_add[blocks, threads](&a, &b, &mut c))?;
    let out = c.to_host()?;

    let wrong = (0..n).filter(|&i| out[i] != host_a[i] + host_b[i]).count();
    if wrong > 0 {
        eprintln!("{wrong} of {n} elements are wrong");
        std::process::exit(1);
    }
    println!(
        "All {n} elements correct (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
