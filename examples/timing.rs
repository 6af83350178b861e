//! Warm-up and timing, as the seed's `timed_run`: the first launch compiles (or loads the
//! cached CUBIN), so it is timed apart from the steady state, which `Device::timed`
//! reports as a median over synchronised runs. Prints the effective bandwidth of a
//! `vec_add` of 16 million `f32` and checks the result.

use std::time::Instant;

use gpu_runtime::prelude::*;

#[gpu_kernel]
pub fn vec_add(a: &[f32], b: &[f32], c: &mut [f32]) {
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
    let dev = Device::gpu_or_simulator()?;
    // Smaller on the simulator, which runs every thread on the CPU.
    let n: usize = match dev.backend() {
        gpu_runtime::Backend::Cuda => 1 << 24,
        gpu_runtime::Backend::Simulator => 1 << 16,
    };
    let host_a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let host_b: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
    let a = dev.to_device(&host_a)?;
    let b = dev.to_device(&host_b)?;
    let mut c = dev.zeros::<f32>(n)?;

    let t = Instant::now();
    launch!(vec_add.forall(n)(&a, &b, &mut c))?;
    dev.synchronize()?;
    let first = t.elapsed();

    let timing = dev.timed(3, 20, || launch!(vec_add.forall(n)(&a, &b, &mut c)))?;
    let out = c.to_host()?;
    if let Some(i) = (0..n).find(|&i| out[i] != host_a[i] + host_b[i]) {
        eprintln!(
            "element {i}: got {}, want {}",
            out[i],
            host_a[i] + host_b[i]
        );
        std::process::exit(1);
    }
    let bytes = 3.0 * (n * std::mem::size_of::<f32>()) as f64;
    println!(
        "vec_add of {n} f32: first launch {:.2} ms (on a GPU: compile or cache load included); then \
         {timing}, {:.1} GB/s (backend: {}, {})",
        first.as_secs_f64() * 1e3,
        bytes / timing.median.as_secs_f64() / 1e9,
        dev.backend(),
        dev.name()
    );
    Ok(())
}
