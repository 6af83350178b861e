//! Elementwise functions (Numba's `@vectorize(target="cuda")`, CuPy's `ElementwiseKernel`):
//! a scalar function becomes a map over arrays with the launch configured automatically.

use gpu_runtime::prelude::*;

/// A fused multiply-add with a clamp, generic over the float type.
#[gpu_elementwise]
pub fn scaled_clamp<T: Float>(x: T, y: T, scale: T) -> T {
    x.mul_add(scale, y).max(T::zero()).min(T::from_f64(10.0))
}

/// A mixed-type function: an integer count and a float weight give a float.
#[gpu_elementwise]
pub fn weigh(count: u32, weight: f32) -> f64 {
    count as f64 * weight as f64
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

/// Runs `scaled_clamp` over `n` elements of `T` and compares with the host, allowing
/// `rel_tol` relative difference (one or two units in the last place of `T`).
fn check<T: Float + Into<f64>>(dev: &Device, n: usize, rel_tol: f64) -> Result<(), GpuError> {
    let x: Vec<T> = (0..n)
        .map(|i| T::from_f64((i % 97) as f64 / 7.0 - 5.0))
        .collect();
    let y: Vec<T> = (0..n).map(|i| T::from_f64((i % 13) as f64 / 3.0)).collect();
    let s: Vec<T> = vec![T::from_f64(1.5); n];
    let (dx, dy, ds) = (dev.to_device(&x)?, dev.to_device(&y)?, dev.to_device(&s)?);
    let out = scaled_clamp::call(&dx, &dy, &ds)?.to_host()?;
    for i in 0..n {
        // The function is still an ordinary Rust function: the host reference.
        let want: f64 = scaled_clamp(x[i], y[i], s[i]).into();
        let got: f64 = out[i].into();
        if (got - want).abs() > rel_tol * want.abs().max(1.0) {
            eprintln!("element {i}: got {got}, want {want}");
            std::process::exit(1);
        }
    }
    Ok(())
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let n = 100_003;
    check::<f32>(&dev, n, 1e-6)?;
    check::<f64>(&dev, n, 1e-12)?;
    // Half precision: storage is 16-bit, arithmetic goes through f32 on both sides.
    check::<f16>(&dev, n, 2e-3)?;
    check::<bf16>(&dev, n, 1.6e-2)?;
    let counts: Vec<u32> = (0..n as u32).map(|i| i % 1000).collect();
    let weights: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.25).collect();
    let (dc, dw) = (dev.to_device(&counts)?, dev.to_device(&weights)?);
    let mut out = dev.zeros::<f64>(n)?;
    weigh::map(&dc, &dw, &mut out)?;
    let out = out.to_host()?;
    if (0..n).any(|i| out[i] != counts[i] as f64 * weights[i] as f64) {
        eprintln!("weigh differs from the host");
        std::process::exit(1);
    }
    // Lengths must agree: an error, not a panic.
    let short = dev.zeros::<f32>(3)?;
    if weigh::call(&dc, &short).is_ok() {
        eprintln!("mismatched lengths were accepted");
        std::process::exit(1);
    }
    println!(
        "elementwise maps correct for f32, f64, f16, bf16 and mixed types (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
