//! A kernel calling generic device functions (Numba's `@cuda.jit(device=True)`), which
//! call each other; launched for f32 and f64, checked against the same functions called
//! on the host (they are ordinary Rust functions too).

use gpu_runtime::prelude::*;

/// Logistic function.
#[gpu_device]
pub fn sigmoid<T: Float>(x: T) -> T {
    T::one() / (T::one() + (-x).exp())
}

/// A softplus-like smooth rectifier built on `sigmoid`.
#[gpu_device]
pub fn swish<T: Float>(x: T, beta: T) -> T {
    x * sigmoid(beta * x)
}

#[gpu_kernel]
pub fn activate<T: Float>(x: &[T], y: &mut [T], beta: T) {
    let i = grid_1d();
    if i < x.len() {
        y[i] = swish(x[i], beta);
    }
}

fn check<T: Float + Into<f64>>(dev: &Device, beta: T, tolerance: f64) -> Result<f64, GpuError> {
    let n = 100_000;
    let x: Vec<T> = (0..n)
        .map(|i| T::from_f64((i as f64 - 50_000.0) / 5_000.0))
        .collect();
    let dx = dev.to_device(&x)?;
    let mut dy = dev.zeros::<T>(n)?;
    launch!(activate.forall(n)(&dx, &mut dy, beta))?;
    let y = dy.to_host()?;
    let worst = (0..n)
        .map(|i| {
            let want: f64 = swish(x[i], beta).into();
            (y[i].into() - want).abs() / want.abs().max(1.0)
        })
        .fold(0.0, f64::max);
    if worst > tolerance {
        eprintln!("swish is off: worst relative error {worst:.1e}");
        std::process::exit(1);
    }
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
    let e32 = check(&dev, 1.5f32, 1e-5)?;
    let e64 = check(&dev, 1.5f64, 1e-13)?;
    println!(
        "swish through device functions correct: f32 worst {e32:.1e}, f64 worst {e64:.1e} (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
