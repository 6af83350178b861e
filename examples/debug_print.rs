//! Printing from a kernel (Numba's `print()` in CUDA kernels): `println!` with `{}`,
//! `{:.N}`, `{:e}`, `{:x}` and named values, on the GPU through CUDA's `printf` and on the
//! simulator with the same text. On the GPU the lines appear when the device
//! synchronises, in no defined order across threads.

use gpu_runtime::prelude::*;

/// Every thread says what it sees.
#[gpu_kernel]
pub fn debug_print(x: &[f32], flags: &[u32]) {
    let i = grid_1d();
    if i < x.len() && i < flags.len() {
        let odd = flags[i] % 2 == 1;
        let v = x[i];
        println!(
            "thread {i}: x = {} (fixed {:.3}, exponent {:e}), flags = {:x}, odd = {odd}",
            v, v, v, flags[i]
        );
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
    let x = dev.to_device(&[0.1f32, -2.5, 1e-7, 3.0e10])?;
    let flags = dev.to_device(&[0u32, 1, 0xff, 0xdead_beef])?;
    launch!(debug_print[1, 32](&x, &flags))?;
    // The GPU's lines are written out here.
    dev.synchronize()?;
    println!("(backend: {}, {})", dev.backend(), dev.name());
    Ok(())
}
