//! NVTX ranges for Nsight Systems: a range around each phase of the program, and one
//! around every launch, named after the kernel's signature.
//!
//! Build with the `nvtx` feature and run under Nsight Systems to see them:
//!
//! ```text
//! cargo build --release --features nvtx --example profiling
//! nsys profile --trace=cuda,nvtx target/release/examples/profiling
//! ```
//!
//! Without the feature (or without `libnvToolsExt`) the ranges cost nothing and the example
//! says why they are off. It checks its result either way, on the GPU or the simulator.

use gpu_runtime::prelude::*;
use gpu_runtime::profiling;

#[gpu_kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] = a * x[i] + y[i];
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
    match profiling::status() {
        Ok(()) => println!("NVTX ranges on"),
        Err(why) => println!("NVTX ranges off: {why}"),
    }
    profiling::annotate_launches(true);
    let _all = profiling::range("profiling example");
    let dev = Device::gpu_or_simulator()?;
    let n = 1usize << 20;
    let host_x: Vec<f32> = (0..n).map(|i| (i % 100) as f32).collect();

    let (x, mut y) = {
        let _r = profiling::range("upload");
        (dev.to_device(&host_x)?, dev.to_device(&vec![1.0f32; n])?)
    };
    {
        let _r = profiling::range("ten saxpy launches");
        for _ in 0..10 {
            launch!(saxpy[n.div_ceil(256), 256](0.5, &x, &mut y))?;
        }
        dev.synchronize()?;
    }
    let out = {
        let _r = profiling::range("download");
        y.to_host()?
    };
    profiling::mark("checked");
    if let Some(i) = (0..n).find(|&i| out[i] != 1.0 + 10.0 * 0.5 * host_x[i]) {
        return Err(GpuError::InvalidArgument(format!(
            "y[{i}] = {}, want {}",
            out[i],
            1.0 + 10.0 * 0.5 * host_x[i]
        )));
    }
    println!("all {n} elements correct ({})", dev.describe());
    Ok(())
}
