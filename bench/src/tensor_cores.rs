//! `gpu-bench tc-gemm`: the tensor cores from our kernel language, a GEMM with f32
//! accumulation at 4096^3 and 8192^3 in bf16 and f16 (`torch.matmul`'s side is
//! `peers_tc.py`'s, in the same run). Each kernel is checked against a float64 host
//! reference on sampled elements before it is timed.

use gpu_runtime::prelude::*;

use crate::{event_ms, median};

macro_rules! tc_gemm {
    ($name:ident, $piped:ident, $t:ty) => {
        /// `c = a * b`: 128 x 128 tiles of C over eight warps, k 32 at a time.
        #[gpu_kernel(launch_bounds(256))]
        pub fn $name(a: &DeviceArray2<$t>, b: &DeviceArray2<$t>, c: &mut DeviceArray2<f32>) {
            let mut sa = shared_array_2d::<$t, 128, 32>();
            let mut sb = shared_array_2d::<$t, 32, 128>();
            let mut acc = mma_acc::<128, 128>();
            let row0 = block_idx().y as usize * 128;
            let col0 = block_idx().x as usize * 128;
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
                let col = col0 + acc.col(e);
                if r < c.rows() && col < c.cols() {
                    c[(r, col)] = acc[e];
                }
            }
        }

        /// The same with two buffers: the next step's tiles are copied asynchronously
        /// while the tensor cores multiply this step's.
        #[gpu_kernel(launch_bounds(256))]
        pub fn $piped(a: &DeviceArray2<$t>, b: &DeviceArray2<$t>, c: &mut DeviceArray2<f32>) {
            let mut sa0 = shared_array_2d::<$t, 128, 32>();
            let mut sb0 = shared_array_2d::<$t, 32, 128>();
            let mut sa1 = shared_array_2d::<$t, 128, 32>();
            let mut sb1 = shared_array_2d::<$t, 32, 128>();
            let mut acc = mma_acc::<128, 128>();
            let row0 = block_idx().y as usize * 128;
            let col0 = block_idx().x as usize * 128;
            let steps = (a.cols() + 31) / 32;
            copy_tile_async(&mut sa0, a, row0, 0);
            copy_tile_async(&mut sb0, b, 0, col0);
            for s in 0..steps {
                if s + 1 < steps {
                    let k1 = (s + 1) * 32;
                    if s % 2 == 0 {
                        copy_tile_async(&mut sa1, a, row0, k1);
                        copy_tile_async(&mut sb1, b, k1, col0);
                    } else {
                        copy_tile_async(&mut sa0, a, row0, k1);
                        copy_tile_async(&mut sb0, b, k1, col0);
                    }
                    // This step's two copies are in; the next step's may still fly.
                    wait_tiles(2);
                } else {
                    wait_tiles(0);
                }
                sync_threads();
                if s % 2 == 0 {
                    mma(&mut acc, &sa0, &sb0);
                } else {
                    mma(&mut acc, &sa1, &sb1);
                }
                sync_threads();
            }
            #[unroll]
            for e in 0..acc.len() {
                let r = row0 + acc.row(e);
                let col = col0 + acc.col(e);
                if r < c.rows() && col < c.cols() {
                    c[(r, col)] = acc[e];
                }
            }
        }
    };
}

/// f32 through tf32, two buffers: 128 x 128 tiles of C, k 16 at a time.
#[gpu_kernel(launch_bounds(256))]
pub fn tc_gemm_piped_tf32(a: &DeviceArray2<f32>, b: &DeviceArray2<f32>, c: &mut DeviceArray2<f32>) {
    let mut sa0 = shared_array_2d::<f32, 128, 16>();
    let mut sb0 = shared_array_2d::<f32, 16, 128>();
    let mut sa1 = shared_array_2d::<f32, 128, 16>();
    let mut sb1 = shared_array_2d::<f32, 16, 128>();
    let mut acc = mma_acc::<128, 128>();
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let steps = (a.cols() + 15) / 16;
    copy_tile_async(&mut sa0, a, row0, 0);
    copy_tile_async(&mut sb0, b, 0, col0);
    for s in 0..steps {
        if s + 1 < steps {
            let k1 = (s + 1) * 16;
            if s % 2 == 0 {
                copy_tile_async(&mut sa1, a, row0, k1);
                copy_tile_async(&mut sb1, b, k1, col0);
            } else {
                copy_tile_async(&mut sa0, a, row0, k1);
                copy_tile_async(&mut sb0, b, k1, col0);
            }
            wait_tiles(2);
        } else {
            wait_tiles(0);
        }
        sync_threads();
        if s % 2 == 0 {
            mma_tf32(&mut acc, &sa0, &sb0);
        } else {
            mma_tf32(&mut acc, &sa1, &sb1);
        }
        sync_threads();
    }
    #[unroll]
    for e in 0..acc.len() {
        let r = row0 + acc.row(e);
        let col = col0 + acc.col(e);
        if r < c.rows() && col < c.cols() {
            c[(r, col)] = acc[e];
        }
    }
}

tc_gemm!(tc_gemm_bf16, tc_gemm_piped_bf16, bf16);
tc_gemm!(tc_gemm_f16, tc_gemm_piped_f16, f16);

pub(crate) fn tc_gemm() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    println!("device {}", dev.name());
    for s in [4096usize, 8192] {
        let fa: Vec<f64> = (0..s * s)
            .map(|i| ((i * 7 % 1009) as f64 - 504.0) / 512.0)
            .collect();
        let fb: Vec<f64> = (0..s * s)
            .map(|i| ((i * 13 % 997) as f64 - 498.0) / 512.0)
            .collect();
        let mut c = dev.to_device_2d(&vec![f32::NAN; s * s], (s, s))?;
        let g = (s / 128, s / 128);
        macro_rules! measure {
            ($t:ty, $dtype:literal, $simple:ident, $piped:ident) => {{
                let ha: Vec<$t> = fa.iter().map(|&v| <$t>::from_f64(v)).collect();
                let hb: Vec<$t> = fb.iter().map(|&v| <$t>::from_f64(v)).collect();
                let (a, b) = (dev.to_device_2d(&ha, (s, s))?, dev.to_device_2d(&hb, (s, s))?);
                let (a16, b16): (Vec<f64>, Vec<f64>) = (
                    ha.iter().map(|v| v.to_f64()).collect(),
                    hb.iter().map(|v| v.to_f64()).collect(),
                );
                // Each kernel's result checked first, from a poisoned output.
                launch!($simple[g, 256](&a, &b, &mut c))?;
                check(&c.to_host()?, &a16, &b16, s, concat!("tc_gemm ", $dtype))?;
                c.copy_from_host(&vec![f32::NAN; s * s])?;
                launch!($piped[g, 256](&a, &b, &mut c))?;
                check(&c.to_host()?, &a16, &b16, s, concat!("tc_gemm_piped ", $dtype))?;
                // Interleaved repetitions of event-timed batches.
                let (mut simple, mut piped) = (Vec::new(), Vec::new());
                for _ in 0..5 {
                    simple.push(event_ms(&dev, 5, || launch!($simple[g, 256](&a, &b, &mut c)))?);
                    piped.push(event_ms(&dev, 5, || launch!($piped[g, 256](&a, &b, &mut c)))?);
                }
                let tflops = |ms: f64| 2.0 * (s as f64).powi(3) / (ms * 1e-3) / 1e12;
                println!("tc_gemm_{}_{s}_tflops {:.1}", $dtype, tflops(median(&mut simple)));
                println!("tc_gemm_piped_{}_{s}_tflops {:.1}", $dtype, tflops(median(&mut piped)));
            }};
        }
        measure!(bf16, "bf16", tc_gemm_bf16, tc_gemm_piped_bf16);
        measure!(f16, "f16", tc_gemm_f16, tc_gemm_piped_f16);
        // f32 through tf32: the reference rounds the inputs as the tensor cores do.
        let ha: Vec<f32> = fa.iter().map(|&v| v as f32).collect();
        let hb: Vec<f32> = fb.iter().map(|&v| v as f32).collect();
        let (a, b) = (
            dev.to_device_2d(&ha, (s, s))?,
            dev.to_device_2d(&hb, (s, s))?,
        );
        let a32: Vec<f64> = ha
            .iter()
            .map(|&v| f64::from(gpu_runtime::round_tf32(v)))
            .collect();
        let b32: Vec<f64> = hb
            .iter()
            .map(|&v| f64::from(gpu_runtime::round_tf32(v)))
            .collect();
        c.copy_from_host(&vec![f32::NAN; s * s])?;
        launch!(tc_gemm_piped_tf32[g, 256](&a, &b, &mut c))?;
        check(&c.to_host()?, &a32, &b32, s, "tc_gemm_piped tf32")?;
        let mut times = Vec::new();
        for _ in 0..5 {
            times.push(event_ms(
                &dev,
                5,
                || launch!(tc_gemm_piped_tf32[g, 256](&a, &b, &mut c)),
            )?);
        }
        let tflops = |ms: f64| 2.0 * (s as f64).powi(3) / (ms * 1e-3) / 1e12;
        println!(
            "tc_gemm_piped_tf32_{s}_tflops {:.1}",
            tflops(median(&mut times))
        );
    }
    for (name, at) in [
        ("tc_gemm", tc_gemm_bf16::attributes(&dev)?),
        ("tc_gemm_piped", tc_gemm_piped_bf16::attributes(&dev)?),
    ] {
        println!("{name}_registers {}", at.registers_per_thread);
        println!("{name}_local_bytes {}", at.local_bytes_per_thread);
    }
    Ok(())
}

/// Sampled elements of `out` against the f64 product of the inputs as the kernel saw them,
/// within the README's tensor-core bound.
fn check(out: &[f32], a: &[f64], b: &[f64], s: usize, what: &str) -> Result<(), GpuError> {
    for t in 0..64 {
        let (i, j) = ((t * 613) % s, (t * 389 + 17) % s);
        let (mut want, mut mag) = (0.0f64, 0.0f64);
        for p in 0..s {
            want += a[i * s + p] * b[p * s + j];
            mag += (a[i * s + p] * b[p * s + j]).abs();
        }
        let got = f64::from(out[i * s + j]);
        // The README's bound, with tf32's 8-deep steps (twice bf16's count: the looser).
        let bound = (s / 8 + 2) as f64 * 2f64.powi(-22) * (mag + want.abs());
        let err = (got - want).abs();
        if err.is_nan() || err > bound {
            return Err(GpuError::InvalidArgument(format!(
                "{what} {s}: c[{i}][{j}] = {got}, want {want}"
            )));
        }
    }
    Ok(())
}
