//! Reductions as sugar (Numba's `@cuda.reduce`, CuPy's `ReductionKernel`): a sum, a
//! maximum, and map-reduces (a sum of squares, a dot product, the largest magnitude), each
//! checked against the host. On the GPU if there is one, else on the simulator.

use gpu_runtime::prelude::*;

/// `a + b`: a sum over any numeric dtype.
#[gpu_reduce]
pub fn add<T: Num>(a: T, b: T) -> T {
    a + b
}

/// The larger of two values.
#[gpu_reduce]
pub fn larger<T: Num>(a: T, b: T) -> T {
    if a > b {
        a
    } else {
        b
    }
}

/// `x²`, the values summed with `add`: a sum of squares.
#[gpu_reduce(with = add)]
pub fn square(x: f64) -> f64 {
    x * x
}

/// `x * y`, summed: a dot product.
#[gpu_reduce(with = add)]
pub fn product(x: f32, y: f32) -> f32 {
    x * y
}

/// `|x|`, reduced with `larger`: the largest magnitude.
#[gpu_reduce(with = larger)]
pub fn magnitude(x: f32) -> f32 {
    x.abs()
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
    println!("backend: {}", dev.describe());
    // 2^24 on a GPU; on the simulator, which runs every GPU thread, 20,000.
    let n = match dev.backend() {
        gpu_runtime::Backend::Cuda => 1 << 24,
        gpu_runtime::Backend::Simulator => 20_000,
    };
    let xs: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 250.0 - 2.0)
        .collect();
    let ys: Vec<f32> = (0..n)
        .map(|i| ((i * 104_729) % 997) as f32 / 500.0 - 1.0)
        .collect();
    let x = dev.to_device(&xs)?;
    let y = dev.to_device(&ys)?;
    let counts: Vec<i64> = (0..n as i64).collect();
    let c = dev.to_device(&counts)?;

    let sum = add::reduce(&x, 0.0f32)?;
    let want: f64 = xs.iter().map(|&v| f64::from(v)).sum();
    check("sum", f64::from(sum), want, 1e-6 * n as f64)?;

    let total = add::reduce(&c, 0i64)?;
    check(
        "integer sum",
        total as f64,
        (n as f64 - 1.0) * n as f64 / 2.0,
        0.0,
    )?;

    let max = larger::reduce(&x, f32::NEG_INFINITY)?;
    check(
        "max",
        f64::from(max),
        f64::from(xs.iter().cloned().fold(f32::NEG_INFINITY, f32::max)),
        0.0,
    )?;

    let wide = dev.to_device(&xs.iter().map(|&v| f64::from(v)).collect::<Vec<f64>>())?;
    let squares = square::reduce(&wide, 0.0)?;
    check(
        "sum of squares",
        squares,
        xs.iter().map(|&v| f64::from(v) * f64::from(v)).sum(),
        1e-9 * n as f64,
    )?;

    let dot = product::reduce(&x, &y, 0.0)?;
    let want: f64 = xs
        .iter()
        .zip(&ys)
        .map(|(&a, &b)| f64::from(a) * f64::from(b))
        .sum();
    check("dot product", f64::from(dot), want, 1e-5 * n as f64)?;

    let largest = magnitude::reduce(&x, 0.0)?;
    check(
        "largest magnitude",
        f64::from(largest),
        f64::from(xs.iter().map(|v| v.abs()).fold(0.0, f32::max)),
        0.0,
    )?;

    let empty = dev.zeros::<f32>(0)?;
    check(
        "empty sum",
        f64::from(add::reduce(&empty, 3.5f32)?),
        3.5,
        0.0,
    )?;
    println!("all reductions match the host");
    Ok(())
}

fn check(what: &str, got: f64, want: f64, tolerance: f64) -> Result<(), GpuError> {
    println!("{what}: {got} (host {want})");
    if (got - want).abs() <= tolerance {
        Ok(())
    } else {
        Err(GpuError::InvalidArgument(format!(
            "{what}: {got}, expected {want}"
        )))
    }
}
