//! 2-D Jacobi iterations on 2-D arrays with a 2-D grid: each interior point becomes the
//! mean of its four neighbours, boundaries stay fixed. Checked against the host.

use gpu_runtime::prelude::*;

#[gpu_kernel]
pub fn jacobi_step(u: &DeviceArray2<f32>, out: &mut DeviceArray2<f32>) {
    let (j, i) = grid_2d();
    let (rows, cols) = (u.rows(), u.cols());
    if i < rows && j < cols {
        out[(i, j)] = if i == 0 || j == 0 || i == rows - 1 || j == cols - 1 {
            u[(i, j)]
        } else {
            0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)])
        };
    }
}

fn host_step(u: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = u.to_vec();
    for i in 1..rows - 1 {
        for j in 1..cols - 1 {
            out[i * cols + j] = 0.25
                * (u[(i - 1) * cols + j]
                    + u[(i + 1) * cols + j]
                    + u[i * cols + j - 1]
                    + u[i * cols + j + 1]);
        }
    }
    out
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
    let (rows, cols, steps) = (130, 97, 20);
    // A hot top edge and a cold interior.
    let mut host: Vec<f32> = vec![0.0; rows * cols];
    host[..cols].fill(100.0);
    let mut a = dev.to_device_2d(&host, (rows, cols))?;
    let mut b = dev.zeros_2d::<f32>((rows, cols))?;
    let grid = (cols.div_ceil(16), rows.div_ceil(16));
    for _ in 0..steps / 2 {
        launch!(jacobi_step[grid, (16, 16)](&a, &mut b))?;
        launch!(jacobi_step[grid, (16, 16)](&b, &mut a))?;
    }
    for _ in 0..steps {
        host = host_step(&host, rows, cols);
    }
    let got = a.to_host()?;
    let worst = got
        .iter()
        .zip(&host)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0f32, f32::max);
    if worst > 1e-4 {
        eprintln!("stencil is off: worst difference {worst}");
        std::process::exit(1);
    }
    println!(
        "{steps} Jacobi steps on {rows}x{cols} correct (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
