//! Tensor cores: a block-level matrix product (`mma_acc`, `copy_tile`, `mma`) in bf16 and
//! f16, on ragged sizes (no multiple of a tile), against a host reference: exact on
//! small-integer inputs (every partial sum is exact in f32, on both backends), within the
//! accumulation bound on random ones. A block of another size than the kernel's is refused.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// `c = a * b` (f32) from bf16 or f16 matrices: 64 x 64 tiles of C, four warps, k 32 at
/// a time.
#[gpu_kernel(launch_bounds(128))]
pub fn tc_gemm_16<T: MmaOperand>(
    a: &DeviceArray2<T>,
    b: &DeviceArray2<T>,
    c: &mut DeviceArray2<f32>,
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
        let col = col0 + acc.col(e);
        if r < c.rows() && col < c.cols() {
            c[(r, col)] = acc[e];
        }
    }
}

/// The same from f16 matrices with another shape (32 x 64 tiles of C over two warps, k 16
/// at a time), pipelined: two buffers, the next step's tiles copied asynchronously while
/// this step's are multiplied; and a bias added to each column before the store.
#[gpu_kernel(launch_bounds(64))]
pub fn tc_gemm_f16(
    a: &DeviceArray2<f16>,
    b: &DeviceArray2<f16>,
    bias: &[f32],
    c: &mut DeviceArray2<f32>,
) {
    let mut sa0 = shared_array_2d::<f16, 32, 16>();
    let mut sb0 = shared_array_2d::<f16, 16, 64>();
    let mut sa1 = shared_array_2d::<f16, 32, 16>();
    let mut sb1 = shared_array_2d::<f16, 16, 64>();
    let mut acc = mma_acc::<32, 64>();
    let row0 = block_idx().y as usize * 32;
    let col0 = block_idx().x as usize * 64;
    let steps = (a.cols() + 15) / 16;
    copy_tile_async(&mut sa0, a, row0, 0);
    copy_tile_async(&mut sb0, b, 0, col0);
    for s in 0..steps {
        if s + 1 < steps {
            if s % 2 == 0 {
                copy_tile_async(&mut sa1, a, row0, (s + 1) * 16);
                copy_tile_async(&mut sb1, b, (s + 1) * 16, col0);
            } else {
                copy_tile_async(&mut sa0, a, row0, (s + 1) * 16);
                copy_tile_async(&mut sb0, b, (s + 1) * 16, col0);
            }
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
        let (r, col) = (row0 + acc.row(e), col0 + acc.col(e));
        if r < c.rows() && col < c.cols() && col < bias.len() {
            c[(r, col)] = acc[e] + bias[col];
        }
    }
}

/// `c = a * b` from f32 matrices through tf32 (asked for by name), 64 x 64 tiles of C.
#[gpu_kernel(launch_bounds(128))]
pub fn tc_gemm_tf32(a: &DeviceArray2<f32>, b: &DeviceArray2<f32>, c: &mut DeviceArray2<f32>) {
    let mut sa = shared_array_2d::<f32, 64, 16>();
    let mut sb = shared_array_2d::<f32, 16, 64>();
    let mut acc = mma_acc::<64, 64>();
    let row0 = block_idx().y as usize * 64;
    let col0 = block_idx().x as usize * 64;
    for k0 in (0..a.cols()).step_by(16) {
        copy_tile(&mut sa, a, row0, k0);
        copy_tile(&mut sb, b, k0, col0);
        sync_threads();
        mma_tf32(&mut acc, &sa, &sb);
        sync_threads();
    }
    #[unroll]
    for e in 0..acc.len() {
        let (r, col) = (row0 + acc.row(e), col0 + acc.col(e));
        if r < c.rows() && col < c.cols() {
            c[(r, col)] = acc[e];
        }
    }
}

/// `a * b` in f64, and for each element the sum of `|a| |b|` the accumulation bound scales.
fn reference(a: &[f64], b: &[f64], (m, k, n): (usize, usize, usize)) -> (Vec<f64>, Vec<f64>) {
    let mut c = vec![0.0; m * n];
    let mut mag = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
                mag[i * n + j] += (a[i * k + p] * b[p * n + j]).abs();
            }
        }
    }
    (c, mag)
}

/// Each element within `rel (mag + |want|)` of the reference: the README's tensor-core
/// bound, and the rounding of the result (a bias added) on top; `rel` 0 is exact.
fn within(name: &str, got: &[f32], want: &[f64], mag: &[f64], rel: f64) -> Result<(), String> {
    for (i, ((&g, &w), &m)) in got.iter().zip(want).zip(mag).enumerate() {
        let err = (f64::from(g) - w).abs();
        let bound = rel * (m + w.abs());
        if err.is_nan() || err > bound {
            return Err(format!(
                "{name}[{i}]: got {g}, want {w} (error {err:.3e}, bound {bound:.3e})"
            ));
        }
    }
    Ok(())
}

/// Matrices as the kernels take them: small integers (exact products and sums) or
/// uniform values, rounded to the 16-bit format, with their f64 values.
fn operands<T: Copy>(
    r: &mut impl Rng,
    len: usize,
    small: bool,
    to: impl Fn(f64) -> T,
    back: impl Fn(T) -> f64,
) -> (Vec<T>, Vec<f64>) {
    let v: Vec<T> = (0..len)
        .map(|_| {
            if small {
                to(f64::from(r.random_range(-4i32..=4)))
            } else {
                to(r.random_range(-1.0..1.0))
            }
        })
        .collect();
    let f = v.iter().map(|&x| back(x)).collect();
    (v, f)
}

pub fn case_tc_gemm(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    // Smaller in a debug build (CI's simulator, where every product is computed on the
    // CPU unoptimised); the same sizes on both backends of one build, so the GPU suite
    // compares them.
    let span = if cfg!(debug_assertions) {
        40..140
    } else {
        150..400
    };
    for small in [true, false] {
        // K and N a multiple of 8 for the small inputs (`copy_tile` moves whole 16-byte
        // pieces), 3 past one for the uniform ones (the element-wise edge path).
        let (m, k, n) = (
            r.random_range(span.clone()),
            r.random_range(span.clone()) / 8 * 8 + if small { 8 } else { 3 },
            r.random_range(span.clone()) / 8 * 8 + if small { 8 } else { 3 },
        );
        // bf16, 64 x 64 tiles.
        let (a, af) = operands(&mut r, m * k, small, bf16::from_f64, bf16::to_f64);
        let (b, bf) = operands(&mut r, k * n, small, bf16::from_f64, bf16::to_f64);
        let (want, mag) = reference(&af, &bf, (m, k, n));
        let (da, db) = (dev.to_device_2d(&a, (m, k))?, dev.to_device_2d(&b, (k, n))?);
        let mut c = dev.to_device_2d(&vec![f32::NAN; m * n], (m, n))?;
        launch!(tc_gemm_16[(n.div_ceil(64), m.div_ceil(64)), 128](&da, &db, &mut c))?;
        let got = c.to_host()?;
        let (name, rel) = if small {
            ("bf16_small", 0.0)
        } else {
            ("bf16_uniform", tc_bound(k))
        };
        within(name, &got, &want, &mag, rel)?;
        // Compared across backends where they must agree bit for bit (small integers); the
        // uniform inputs' results are held to the bound above on each backend.
        if small {
            out.push((name, f64s(&got)));
        }

        // f16, 32 x 64 tiles, a bias.
        let (a, af) = operands(&mut r, m * k, small, f16::from_f64, f16::to_f64);
        let (b, bf) = operands(&mut r, k * n, small, f16::from_f64, f16::to_f64);
        let bias: Vec<f32> = (0..n).map(|j| (j % 7) as f32 - 3.0).collect();
        let (mut want, mag) = reference(&af, &bf, (m, k, n));
        for (i, w) in want.iter_mut().enumerate() {
            *w += f64::from(bias[i % n]);
        }
        let (da, db) = (dev.to_device_2d(&a, (m, k))?, dev.to_device_2d(&b, (k, n))?);
        let dbias = dev.to_device(&bias)?;
        // The generic kernel's f16 instance, without the bias.
        let mut plain = dev.to_device_2d(&vec![f32::NAN; m * n], (m, n))?;
        launch!(tc_gemm_16[(n.div_ceil(64), m.div_ceil(64)), 128](&da, &db, &mut plain))?;
        let unbiased: Vec<f64> = want
            .iter()
            .enumerate()
            .map(|(i, w)| w - f64::from(bias[i % n]))
            .collect();
        let (gname, grel) = if small {
            ("f16_generic_small", 0.0)
        } else {
            ("f16_generic_uniform", tc_bound(k))
        };
        within(gname, &plain.to_host()?, &unbiased, &mag, grel)?;
        let mut c = dev.to_device_2d(&vec![f32::NAN; m * n], (m, n))?;
        launch!(tc_gemm_f16[(n.div_ceil(64), m.div_ceil(32)), 64](&da, &db, &dbias, &mut c))?;
        let got = c.to_host()?;
        let (name, rel) = if small {
            ("f16_small", 0.0)
        } else {
            ("f16_uniform", tc_bound(k))
        };
        within(name, &got, &want, &mag, rel)?;
        // Compared across backends where they must agree bit for bit (small integers); the
        // uniform inputs' results are held to the bound above on each backend.
        if small {
            out.push((name, f64s(&got)));
        }
    }

    // f32 through tf32: the host rounds the inputs as the tensor cores do, then the same
    // bound with 8-deep steps. Values with more bits than tf32 keeps show the rounding.
    for small in [true, false] {
        // K and N a multiple of 8 for the small inputs (`copy_tile` moves whole 16-byte
        // pieces), 3 past one for the uniform ones (the element-wise edge path).
        let (m, k, n) = (
            r.random_range(span.clone()),
            r.random_range(span.clone()) / 8 * 8 + if small { 8 } else { 3 },
            r.random_range(span.clone()) / 8 * 8 + if small { 8 } else { 3 },
        );
        let a: Vec<f32> = (0..m * k)
            .map(|_| {
                if small {
                    r.random_range(-4i32..=4) as f32
                } else {
                    r.random_range(-1.0..1.0)
                }
            })
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|_| {
                if small {
                    r.random_range(-4i32..=4) as f32
                } else {
                    r.random_range(-1.0..1.0)
                }
            })
            .collect();
        let tf = |v: &[f32]| -> Vec<f64> {
            v.iter()
                .map(|&x| f64::from(gpu_runtime::round_tf32(x)))
                .collect()
        };
        let (want, mag) = reference(&tf(&a), &tf(&b), (m, k, n));
        let (da, db) = (dev.to_device_2d(&a, (m, k))?, dev.to_device_2d(&b, (k, n))?);
        let mut c = dev.to_device_2d(&vec![f32::NAN; m * n], (m, n))?;
        launch!(tc_gemm_tf32[(n.div_ceil(64), m.div_ceil(64)), 128](&da, &db, &mut c))?;
        let got = c.to_host()?;
        let (name, rel) = if small {
            ("tf32_small", 0.0)
        } else {
            ("tf32_uniform", (k / 8 + 2) as f64 * 2f64.powi(-22))
        };
        within(name, &got, &want, &mag, rel)?;
        // Compared across backends where they must agree bit for bit (small integers); the
        // uniform inputs' results are held to the bound above on each backend.
        if small {
            out.push((name, f64s(&got)));
        }
    }

    // Blocks of another size than `launch_bounds(128)`: refused before anything runs.
    let (da, db) = (
        dev.to_device_2d(&[bf16::ONE; 64], (8, 8))?,
        dev.to_device_2d(&[bf16::ONE; 64], (8, 8))?,
    );
    let mut c = dev.to_device_2d(&[0.0f32; 64], (8, 8))?;
    for block in [64usize, 96] {
        match launch!(tc_gemm_16[1, block](&da, &db, &mut c)) {
            Err(GpuError::InvalidLaunch { reason, .. })
                if reason.contains("launch_bounds(128)") => {}
            other => return Err(format!("a block of {block} threads gave {other:?}").into()),
        }
    }
    Ok(out)
}

/// The README's tensor-core bound for an inner dimension `k`: each element within this many
/// times the sum of `|a b|` of its products and its magnitude (one rounding or truncation
/// per 16-deep step, and a little within it).
pub fn tc_bound(k: usize) -> f64 {
    (k / 16 + 2) as f64 * 2f64.powi(-22)
}

/// A tile staged asynchronously with no tensor-core product: it compiles for GPUs before
/// sm_80 too (where the copy is made at once), which the NVRTC suite checks.
#[gpu_kernel]
pub fn staged_sum(a: &DeviceArray2<f32>, out: &mut [f32]) {
    let mut tile = shared_array_2d::<f32, 8, 8>();
    copy_tile_async(&mut tile, a, 0, 0);
    wait_tiles(0);
    sync_threads();
    let t = thread_idx().x as usize;
    if t < 8 && t < out.len() {
        let mut s = 0.0f32;
        for c in 0..8 {
            s += tile[(t, c)];
        }
        out[t] = s;
    }
}
