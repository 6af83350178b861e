//! A GEMM on the tensor cores with a fused epilogue: `out = gelu(a * b + bias)` for bf16 or
//! f16 `a` (M x K) and `b` (K x N), f32 accumulation and output, any M, N and K.
//!
//! Each block of 128 threads owns a 64 x 64 tile of the output: `copy_tile` stages 64 x 32
//! and 32 x 64 tiles of the inputs in shared memory (zero past the matrices' edges),
//! `mma` multiplies them on the tensor cores into the block's accumulator, and each thread
//! then finishes the elements it holds (`acc.row(e)`, `acc.col(e)`): the bias, GELU in
//! its tanh form, a store masked to the matrix. The kernel is generic over the tensor
//! cores' 16-bit operands (`T: MmaOperand`); `mma_tf32` multiplies f32 tiles.

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// `out = gelu(a * b + bias)`, 64 x 64 tiles of `out` per block of four warps.
#[gpu_kernel(launch_bounds(128))]
pub fn gemm_bias_gelu<T: MmaOperand>(
    a: &DeviceArray2<T>,
    b: &DeviceArray2<T>,
    bias: &[f32],
    out: &mut DeviceArray2<f32>,
) {
    let mut sa = shared_array_2d::<T, 64, 32>();
    let mut sb = shared_array_2d::<T, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    let row0 = block_idx().y as usize * 64;
    let col0 = block_idx().x as usize * 64;
    for k0 in (0..a.cols()).step_by(32) {
        copy_tile(&mut sa, a, row0, k0);
        copy_tile(&mut sb, b, k0, col0);
        sync_threads();
        mma(&mut acc, &sa, &sb);
        sync_threads();
    }
    #[unroll]
    for e in 0..acc.len() {
        let r = row0 + acc.row(e);
        let c = col0 + acc.col(e);
        if r < out.rows() && c < out.cols() {
            let x = acc[e] + bias[c];
            let inner = 0.797_884_6f32 * (x + 0.044715f32 * x * x * x);
            out[(r, c)] = 0.5f32 * x * (1.0f32 + inner.tanh());
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
    // No multiple of the tiles; smaller on the simulator, which runs every thread on the CPU.
    let (m, k, n) = match dev.backend() {
        Backend::Cuda => (1000, 700, 900),
        Backend::Simulator => (100, 70, 90),
    };
    let worst_bf16 = check::<bf16>(&dev, (m, k, n))?;
    let worst_f16 = check::<f16>(&dev, (m, k, n))?;
    println!(
        "gelu(a * b + bias) for {m}x{k} * {k}x{n} on the tensor cores correct, worst scaled \
         error {worst_bf16:.1e} (bf16), {worst_f16:.1e} (f16) (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}

/// Run the kernel for `T` inputs and compare with the host's answer in f64: within the
/// tensor cores' accumulation bound (README) and the f32 epilogue's roundings.
fn check<T: MmaOperand + gpu_runtime::Dtype>(
    dev: &Device,
    (m, k, n): (usize, usize, usize),
) -> Result<f64, GpuError> {
    let a: Vec<T> = (0..m * k)
        .map(|i| T::from_f64(((i * 37 % 101) as f64 - 50.0) / 100.0))
        .collect();
    let b: Vec<T> = (0..k * n)
        .map(|i| T::from_f64(((i * 53 % 97) as f64 - 48.0) / 96.0))
        .collect();
    let bias: Vec<f32> = (0..n).map(|j| (j % 11) as f32 / 10.0 - 0.5).collect();
    let da = dev.to_device_2d(&a, (m, k))?;
    let db = dev.to_device_2d(&b, (k, n))?;
    let dbias = dev.to_device(&bias)?;
    let mut dout = dev.to_device_2d(&vec![f32::NAN; m * n], (m, n))?;
    launch!(gemm_bias_gelu[(n.div_ceil(64), m.div_ceil(64)), 128](
        &da, &db, &dbias, &mut dout
    ))?;
    let out = dout.to_host()?;
    let mut worst = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let (mut dot, mut mag) = (0.0f64, 0.0f64);
            for p in 0..k {
                let t = a[i * k + p].to_f64() * b[p * n + j].to_f64();
                dot += t;
                mag += t.abs();
            }
            let x = dot + f64::from(bias[j]);
            let want = 0.5 * x * (1.0 + (0.797_884_560_8 * (x + 0.044715 * x * x * x)).tanh());
            let err = (f64::from(out[i * n + j]) - want).abs() / (mag + x.abs()).max(1.0);
            worst = worst.max(if err.is_nan() { f64::INFINITY } else { err });
        }
    }
    if worst > 1e-5 {
        return Err(GpuError::InvalidArgument(format!(
            "gemm_bias_gelu is off: worst scaled error {worst:.1e}"
        )));
    }
    Ok(worst)
}
