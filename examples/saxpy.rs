//! `y = alpha * x + y`, one generic kernel launched for `f32` and for `f64` in one run.

use gpu_runtime::prelude::*;

#[gpu_kernel]
pub fn saxpy<T: Float>(alpha: T, x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = alpha * x[i] + y[i];
    }
}

/// Run saxpy for one dtype and return the largest relative error against the host.
fn saxpy_once<T: Float + Into<f64>>(dev: &Device, alpha: T, n: usize) -> Result<f64, GpuError> {
    let x: Vec<T> = (0..n)
        .map(|i| T::from_usize(i % 1000) / T::from_f64(7.0))
        .collect();
    let y: Vec<T> = (0..n).map(|i| T::from_usize(i % 333)).collect();
    let dx = dev.to_device(&x)?;
    let mut dy = dev.to_device(&y)?;
    launch!(saxpy[n.div_ceil(256), 256](alpha, &dx, &mut dy))?;
    let out = dy.to_host()?;
    let worst = (0..n)
        .map(|i| {
            let want = alpha.into() * x[i].into() + y[i].into();
            (out[i].into() - want).abs() / want.abs().max(1.0)
        })
        .fold(0.0, f64::max);
    Ok(worst)
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
    let n = 1 << 20;
    let e32 = saxpy_once(&dev, 2.5f32, n)?;
    let e64 = saxpy_once(&dev, 2.5f64, n)?;
    println!("saxpy f32: max relative error {e32:.1e}");
    println!("saxpy f64: max relative error {e64:.1e}");
    if e32 > 1e-6 || e64 > 1e-14 {
        eprintln!("saxpy results are off");
        std::process::exit(1);
    }
    println!(
        "saxpy correct for f32 and f64 (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
