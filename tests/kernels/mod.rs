//! One kernel per Stage 1 construct, each with a check against a CPU reference.
//!
//! Shared by three suites: `simulator.rs` runs every case on the CPU simulator (CI),
//! `nvrtc.rs` compiles every kernel with the real NVRTC (CI), and `gpu_suite.rs` runs every
//! case on the GPU and on the simulator and compares all three (the H200).
//!
//! Every case draws fresh random inputs from the seed it is given and poisons its outputs
//! before the launch, so an element the kernel fails to write shows up as a mismatch.
#![allow(dead_code)]
// CPU references mirror the kernels line by line, in the kernel language's idioms.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::manual_is_multiple_of)]

pub mod block;
pub mod device;
pub mod faults;
pub mod host_api;

use gpu_runtime::prelude::*;
use gpu_runtime::{Dtype, KernelDef};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// What a case produced: named outputs as `f64`, for comparison across backends.
pub type Outputs = Vec<(&'static str, Vec<f64>)>;

pub struct Case {
    pub name: &'static str,
    /// Relative tolerance between GPU and simulator outputs (0 for exact).
    pub cross_tolerance: f64,
    pub run: fn(&Device, u64) -> Result<Outputs, String>,
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "block reduction: shared memory, sync_threads, shfl_down, two passes",
            cross_tolerance: 1e-4,
            run: block::case_reduce,
        },
        Case {
            name: "histogram: atomic_add on global and shared memory",
            cross_tolerance: 0.0,
            run: block::case_histogram,
        },
        Case {
            name: "tiled matmul: 2-D shared arrays, sizes not multiples of 16",
            cross_tolerance: 1e-5,
            run: block::case_matmul,
        },
        Case {
            name: "warp: shfl/up/down/xor, ballot, any, all, eq, lane_id, active_mask",
            cross_tolerance: 0.0,
            run: block::case_warp,
        },
        Case {
            name: "atomics: add sub min max and or xor inc dec cas exch, f64, i64",
            cross_tolerance: 0.0,
            run: block::case_atomics,
        },
        Case {
            name: "vector loads and stores: load4/store4 for f32 and i64, with a tail",
            cross_tolerance: 0.0,
            run: block::case_vector,
        },
        Case {
            name: "f16 and bf16: arithmetic, math, comparisons, atomics",
            cross_tolerance: 1e-2,
            run: block::case_half,
        },
        Case {
            name: "cooperative launch: sync_grid, reused; oversized grids refused",
            cross_tolerance: 0.0,
            run: block::case_cooperative,
        },
        Case {
            name: "3-D array parameters: a[(i, j, k)], shape(), a 3-D grid",
            cross_tolerance: 0.0,
            run: block::case_array3,
        },
        Case {
            name: "2-D array parameters: a[(i, j)], rows(), cols(), 2-D atomics",
            cross_tolerance: 0.0,
            run: block::case_array2,
        },
        Case {
            name: "device functions: generic, nested, early return, whole arrays, from a module",
            cross_tolerance: 1e-6,
            run: device::case_device,
        },
        Case {
            name: "sync_threads_count/and/or, dynamic shared memory, local arrays",
            cross_tolerance: 0.0,
            run: block::case_block_misc,
        },
        Case {
            name: "vec_add f32/f64 (slices, grid_1d, bounds check)",
            cross_tolerance: 0.0,
            run: case_vec_add,
        },
        Case {
            name: "forall(n): automatic block size, forall(0), empty arrays",
            cross_tolerance: 0.0,
            run: case_forall,
        },
        Case {
            name: "saxpy f32/f64 (generic scalar parameter)",
            cross_tolerance: 1e-5,
            run: case_saxpy,
        },
        Case {
            name: "integer arithmetic and bitwise ops (i32 i64 u32 u64)",
            cross_tolerance: 0.0,
            run: case_int_ops,
        },
        Case {
            name: "generic Int kernel (i32 u64)",
            cross_tolerance: 0.0,
            run: case_generic_int,
        },
        Case {
            name: "comparisons, && || !, bool parameters",
            cross_tolerance: 0.0,
            run: case_logic,
        },
        Case {
            name: "casts between every kind",
            cross_tolerance: 0.0,
            run: case_casts,
        },
        Case {
            name: "f32 literals compute in f32, not double",
            cross_tolerance: 1e-5,
            run: case_f32_literals,
        },
        Case {
            name: "if/else as expression, with statements, else-if",
            cross_tolerance: 1e-6,
            run: case_if_expr,
        },
        Case {
            name: "for, step_by, while, loop, break, continue, return",
            cross_tolerance: 0.0,
            run: case_loops,
        },
        Case {
            name: "compound assignment, shadowing, reserved names",
            cross_tolerance: 0.0,
            run: case_compound,
        },
        Case {
            name: "math methods f32",
            cross_tolerance: 4e-6,
            run: case_math_f32,
        },
        Case {
            name: "math methods f64 (generic)",
            cross_tolerance: 1e-14,
            run: case_math_f64,
        },
        Case {
            name: "2-D and 3-D geometry, gridsize",
            cross_tolerance: 0.0,
            run: case_geometry,
        },
        Case {
            name: "grid-stride loop",
            cross_tolerance: 1e-6,
            run: case_grid_stride,
        },
        Case {
            name: "constants and T::from_* conversions",
            cross_tolerance: 1e-6,
            run: case_constants,
        },
    ]
}

/// Every kernel defined here, for the NVRTC suite.
pub fn definitions() -> Vec<&'static KernelDef> {
    vec![
        vec_add.definition(),
        saxpy.definition(),
        int_ops_i32.definition(),
        int_ops_i64.definition(),
        int_ops_u32.definition(),
        int_ops_u64.definition(),
        generic_int.definition(),
        logic.definition(),
        casts.definition(),
        f32_literals.definition(),
        if_expr.definition(),
        loops.definition(),
        compound.definition(),
        math_f32.definition(),
        math_generic.definition(),
        geometry_2d.definition(),
        geometry_3d.definition(),
        grid_stride.definition(),
        constants.definition(),
        out_of_bounds.definition(),
        block::block_sum.definition(),
        block::histogram_global.definition(),
        block::histogram_shared.definition(),
        block::matmul_tiled.definition(),
        block::warp_ops.definition(),
        block::half_warp_sum.definition(),
        block::atomics_all.definition(),
        block::barrier_votes.definition(),
        block::reverse_blocks.definition(),
        block::local_sort.definition(),
        block::vec_add4.definition(),
        block::smooth2d.definition(),
        block::grid_mirror.definition(),
        block::diff3d.definition(),
        block::half_ops.definition(),
        device::shade.definition(),
        device::collatz.definition(),
        device::windows.definition(),
        device::histogram_via_device.definition(),
        device::block_sums_via_device.definition(),
        device::block_sums_dynamic.definition(),
    ]
    .into_iter()
    .chain(faults::definitions())
    .collect()
}

// ----- helpers --------------------------------------------------------------------------

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

fn uniform_f32(r: &mut StdRng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| r.random_range(lo..hi)).collect()
}

fn uniform_f64(r: &mut StdRng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| r.random_range(lo..hi)).collect()
}

fn blocks(n: usize, threads: usize) -> usize {
    n.div_ceil(threads)
}

/// An output array filled with a value the kernel never writes, so a missed element fails.
fn poisoned<T: Dtype>(dev: &Device, n: usize, poison: T) -> Result<DeviceArray<T>, String> {
    dev.to_device(&vec![poison; n]).map_err(|e| e.to_string())
}

fn err(e: GpuError) -> String {
    e.to_string()
}

/// Compare `got` with `want`: exactly, or within `rel` relative error (absolute below 1);
/// NaN never passes.
pub fn compare(name: &str, got: &[f64], want: &[f64], rel: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{name}: length {} != {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if rel == 0.0 {
            g.to_bits() == w.to_bits() || g == w
        } else {
            (g - w).abs() <= rel * w.abs().max(1.0) || g == w
        };
        if !ok || g.is_nan() != w.is_nan() {
            return Err(format!(
                "{name}[{i}]: got {g:?}, want {w:?} (tolerance {rel})"
            ));
        }
    }
    Ok(())
}

fn f64s<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

fn check<T: Copy + Into<f64>>(
    out: &mut Outputs,
    name: &'static str,
    got: &[T],
    want: &[T],
    rel: f64,
) -> Result<(), String> {
    let (g, w) = (f64s(got), f64s(want));
    compare(name, &g, &w, rel)?;
    out.push((name, g));
    Ok(())
}

/// Each element must equal `fused[i]` or `plain[i]` exactly: the two f32/f64 evaluations
/// of an expression that the GPU compiler may contract into fused multiply-adds.
fn check_either<T: Copy + Into<f64> + PartialEq + std::fmt::Debug>(
    out: &mut Outputs,
    name: &'static str,
    got: &[T],
    fused: &[T],
    plain: &[T],
) -> Result<(), String> {
    for i in 0..got.len() {
        if got[i] != fused[i] && got[i] != plain[i] {
            return Err(format!(
                "{name}[{i}]: got {:?}, want {:?} (fused) or {:?} (unfused)",
                got[i], fused[i], plain[i]
            ));
        }
    }
    out.push((name, f64s(got)));
    Ok(())
}

// ----- vec_add, saxpy -------------------------------------------------------------------

#[gpu_kernel]
pub fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] + b[i];
    }
}

fn case_vec_add(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 10_007;
    let (a, b) = (
        uniform_f32(&mut r, n, -1e3, 1e3),
        uniform_f32(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut dc = poisoned(dev, n, f32::NAN)?;
    launch!(vec_add[blocks(n, 256), 256](&da, &db, &mut dc)).map_err(err)?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "f32", &dc.to_host().map_err(err)?, &want, 0.0)?;

    let (a, b) = (
        uniform_f64(&mut r, n, -1e3, 1e3),
        uniform_f64(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut dc = poisoned(dev, n, f64::NAN)?;
    launch!(vec_add[blocks(n, 128), 128](&da, &db, &mut dc)).map_err(err)?;
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "f64", &dc.to_host().map_err(err)?, &want, 0.0)?;
    Ok(out)
}

fn case_forall(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1..200_000);
    let (a, b) = (
        uniform_f32(&mut r, n, -1e3, 1e3),
        uniform_f32(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut dc = poisoned(dev, n, f32::NAN)?;
    launch!(vec_add.forall(n)(&da, &db, &mut dc)).map_err(err)?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "forall", &dc.to_host().map_err(err)?, &want, 0.0)?;
    // Empty arrays exist, copy, and a forall over them launches nothing.
    let e = dev.to_device::<f32>(&[]).map_err(err)?;
    let mut z = dev.zeros::<f32>(0).map_err(err)?;
    launch!(vec_add.forall(0)(&e, &e, &mut z)).map_err(err)?;
    if !z.to_host().map_err(err)?.is_empty() || !e.is_empty() {
        return Err("empty arrays are not empty".to_owned());
    }
    Ok(out)
}

#[gpu_kernel]
fn saxpy<T: Float>(alpha: T, x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = alpha * x[i] + y[i];
    }
}

fn case_saxpy(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 5_000;
    let (x, y) = (
        uniform_f32(&mut r, n, -10.0, 10.0),
        uniform_f32(&mut r, n, -10.0, 10.0),
    );
    let alpha: f32 = r.random_range(-3.0..3.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let mut dy = dev.to_device(&y).map_err(err)?;
    launch!(saxpy[blocks(n, 256), 256](alpha, &dx, &mut dy)).map_err(err)?;
    // NVRTC contracts `a*x+y` into one FMA by default (as nvcc does); the simulator does
    // not. Each element must equal one of the two exactly.
    let fused: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    let plain: Vec<f32> = x.iter().zip(&y).map(|(x, y)| alpha * x + y).collect();
    check_either(&mut out, "f32", &dy.to_host().map_err(err)?, &fused, &plain)?;

    let (x, y) = (
        uniform_f64(&mut r, n, -10.0, 10.0),
        uniform_f64(&mut r, n, -10.0, 10.0),
    );
    let alpha: f64 = r.random_range(-3.0..3.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let mut dy = dev.to_device(&y).map_err(err)?;
    launch!(saxpy[blocks(n, 64), 64](alpha, &dx, &mut dy)).map_err(err)?;
    let fused: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    let plain: Vec<f64> = x.iter().zip(&y).map(|(x, y)| alpha * x + y).collect();
    check_either(&mut out, "f64", &dy.to_host().map_err(err)?, &fused, &plain)?;
    Ok(out)
}

// ----- integers -------------------------------------------------------------------------

#[gpu_kernel]
fn int_ops_i32(a: &[i32], b: &[i32], s: &[u32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = x << s[i];
        out[o + 9] = (x >> s[i]) + !y - (-x).abs();
    }
}

#[gpu_kernel]
fn int_ops_i64(a: &[i64], b: &[i64], s: &[u32], out: &mut [i64]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = x << s[i];
        out[o + 9] = (x >> s[i]) + !y - x.abs().min(y).max(-5);
    }
}

#[gpu_kernel]
fn int_ops_u32(a: &[u32], b: &[u32], s: &[u32], out: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = x << s[i];
        out[o + 9] = (x >> s[i]) + (!y >> 4) + x.min(y) - x.max(y) / 2;
    }
}

#[gpu_kernel]
fn int_ops_u64(a: &[u64], b: &[u64], s: &[u32], out: &mut [u64]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = (x << s[i]) & 0xFFFF_FFFF_FFFF;
        out[o + 9] = (x >> s[i]) + (!y >> 20);
    }
}

fn case_int_ops(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 1_000;
    let s: Vec<u32> = (0..n).map(|_| r.random_range(0..8)).collect();
    let ds = dev.to_device(&s).map_err(err)?;
    let g = blocks(n, 128);

    // Operands small enough that + - * never overflow; divisors never zero.
    let a: Vec<i32> = (0..n).map(|_| r.random_range(-30_000..30_000)).collect();
    let b: Vec<i32> = (0..n)
        .map(|_| signed_nonzero(&mut r, 30_000) as i32)
        .collect();
    check_int_ops(
        dev,
        &mut out,
        "i32",
        (&a, &b, &s),
        i32::MIN,
        |a, b, d| launch!(int_ops_i32[g, 128](a, b, &ds, d)),
        |x, y, s| [x << s, (x >> s) + !y - (-x).abs()],
        |v| v as f64,
    )?;

    let a: Vec<i64> = (0..n)
        .map(|_| r.random_range(-1_000_000_000..1_000_000_000))
        .collect();
    let b: Vec<i64> = (0..n)
        .map(|_| signed_nonzero(&mut r, 1_000_000_000))
        .collect();
    check_int_ops(
        dev,
        &mut out,
        "i64",
        (&a, &b, &s),
        i64::MIN,
        |a, b, d| launch!(int_ops_i64[g, 128](a, b, &ds, d)),
        |x, y, s| [x << s, (x >> s) + !y - x.abs().min(y).max(-5)],
        |v| v as f64,
    )?;

    let a: Vec<u32> = (0..n).map(|_| r.random_range(40_000..60_000)).collect();
    let b: Vec<u32> = (0..n).map(|_| r.random_range(1..40_000)).collect();
    check_int_ops(
        dev,
        &mut out,
        "u32",
        (&a, &b, &s),
        0xDEAD_BEEF,
        |a, b, d| launch!(int_ops_u32[g, 128](a, b, &ds, d)),
        |x, y, s| [x << s, (x >> s) + (!y >> 4) + x.min(y) - x.max(y) / 2],
        |v| v as f64,
    )?;

    let a: Vec<u64> = (0..n)
        .map(|_| r.random_range(1u64 << 40..1u64 << 41))
        .collect();
    let b: Vec<u64> = (0..n).map(|_| r.random_range(1..1u64 << 20)).collect();
    check_int_ops(
        dev,
        &mut out,
        "u64",
        (&a, &b, &s),
        u64::MAX,
        |a, b, d| launch!(int_ops_u64[g, 128](a, b, &ds, d)),
        |x, y, s| [(x << s) & 0xFFFF_FFFF_FFFF, (x >> s) + (!y >> 20)],
        // Exact in f64 for the cross-backend comparison.
        |v| (v % (1 << 52)) as f64,
    )?;
    Ok(out)
}

/// A value in `1..hi` or `-hi+1..=-1`, with either sign equally likely.
fn signed_nonzero(r: &mut StdRng, hi: i64) -> i64 {
    let v = r.random_range(1..hi);
    if r.random() {
        v
    } else {
        -v
    }
}

/// Runs one `int_ops` kernel on `a`, `b`, `s` into an output poisoned with `poison` (ten
/// results per element) and compares it exactly with the reference: `+ - * / % & | ^`,
/// then the two results that differ per dtype (`shifts_and_mixed`).
#[allow(clippy::too_many_arguments)]
fn check_int_ops<T>(
    dev: &Device,
    out: &mut Outputs,
    name: &'static str,
    (a, b, s): (&[T], &[T], &[u32]),
    poison: T,
    launch: impl FnOnce(&DeviceArray<T>, &DeviceArray<T>, &mut DeviceArray<T>) -> Result<(), GpuError>,
    shifts_and_mixed: impl Fn(T, T, u32) -> [T; 2],
    as_f64: impl Fn(T) -> f64,
) -> Result<(), String>
where
    T: Dtype
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>
        + std::ops::Rem<Output = T>
        + std::ops::BitAnd<Output = T>
        + std::ops::BitOr<Output = T>
        + std::ops::BitXor<Output = T>,
{
    let (da, db) = (
        dev.to_device(a).map_err(err)?,
        dev.to_device(b).map_err(err)?,
    );
    let mut d = poisoned(dev, a.len() * 10, poison)?;
    launch(&da, &db, &mut d).map_err(err)?;
    let want: Vec<T> = (0..a.len())
        .flat_map(|i| {
            let (x, y) = (a[i], b[i]);
            let [p, q] = shifts_and_mixed(x, y, s[i]);
            [x + y, x - y, x * y, x / y, x % y, x & y, x | y, x ^ y, p, q]
        })
        .collect();
    let got = d.to_host().map_err(err)?;
    if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
        return Err(format!("{name}[{i}]: got {:?}, want {:?}", got[i], want[i]));
    }
    out.push((name, got.into_iter().map(as_f64).collect()));
    Ok(())
}

#[gpu_kernel]
fn generic_int<T: Int>(a: &[T], b: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i] = ((x & y) | (x ^ y)) + x.min(y) * T::from_i32(3) - T::one() + (x >> 1u32);
    }
}

fn case_generic_int(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    let a: Vec<i32> = (0..n).map(|_| r.random_range(-10_000..10_000)).collect();
    let b: Vec<i32> = (0..n).map(|_| r.random_range(-10_000..10_000)).collect();
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut d = poisoned(dev, n, i32::MIN)?;
    launch!(generic_int[blocks(n, 256), 256](&da, &db, &mut d)).map_err(err)?;
    let want: Vec<i32> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| ((x & y) | (x ^ y)) + x.min(y) * 3 - 1 + (x >> 1))
        .collect();
    check(&mut out, "i32", &d.to_host().map_err(err)?, &want, 0.0)?;

    let a: Vec<u64> = (0..n).map(|_| r.random_range(1..1u64 << 40)).collect();
    let b: Vec<u64> = (0..n).map(|_| r.random_range(1..1u64 << 40)).collect();
    let (da, db) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
    );
    let mut d = poisoned(dev, n, 0u64)?;
    launch!(generic_int[blocks(n, 256), 256](&da, &db, &mut d)).map_err(err)?;
    let want: Vec<u64> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| ((x & y) | (x ^ y)) + x.min(y) * 3 - 1 + (x >> 1))
        .collect();
    let got = d.to_host().map_err(err)?;
    if got != want {
        return Err("u64 generic_int mismatch".to_owned());
    }
    out.push(("u64", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

// ----- logic, casts, literals -----------------------------------------------------------

#[gpu_kernel]
fn logic(a: &[f32], b: &[f32], flags: &[bool], invert: bool, out: &mut [i32], bits: &mut [bool]) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let x = a[i];
    let y = b[i];
    let mut code = 0i32;
    if x < y {
        code |= 1;
    }
    if x <= y {
        code |= 2;
    }
    if x > y {
        code |= 4;
    }
    if x >= y {
        code |= 8;
    }
    if x == y {
        code |= 16;
    }
    if x != y {
        code |= 32;
    }
    if (x > 0.0 && y > 0.0) || !(x < -0.5) {
        code |= 64;
    }
    if flags[i] ^ invert {
        code |= 128;
    }
    out[i] = code;
    bits[i] = (flags[i] && x > y) || (invert & !flags[i]);
}

fn case_logic(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 3_000;
    let a: Vec<f32> = (0..n)
        .map(|_| (r.random_range(-4..4) as f32) * 0.5)
        .collect();
    let b: Vec<f32> = (0..n)
        .map(|_| (r.random_range(-4..4) as f32) * 0.5)
        .collect();
    let flags: Vec<bool> = (0..n).map(|_| r.random()).collect();
    let invert: bool = r.random();
    let (da, db, df) = (
        dev.to_device(&a).map_err(err)?,
        dev.to_device(&b).map_err(err)?,
        dev.to_device(&flags).map_err(err)?,
    );
    let mut dout = poisoned(dev, n, -1i32)?;
    let mut dbits = dev
        .to_device(&flags.iter().map(|f| !f).collect::<Vec<_>>())
        .map_err(err)?;
    launch!(logic[blocks(n, 256), 256](&da, &db, &df, invert, &mut dout, &mut dbits))
        .map_err(err)?;
    let mut want = Vec::new();
    let mut want_bits = Vec::new();
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let mut code = 0;
        if x < y {
            code |= 1;
        }
        if x <= y {
            code |= 2;
        }
        if x > y {
            code |= 4;
        }
        if x >= y {
            code |= 8;
        }
        if x == y {
            code |= 16;
        }
        if x != y {
            code |= 32;
        }
        if (x > 0.0 && y > 0.0) || !(x < -0.5) {
            code |= 64;
        }
        if flags[i] ^ invert {
            code |= 128;
        }
        want.push(code);
        want_bits.push((flags[i] && x > y) || (invert & !flags[i]));
    }
    check(&mut out, "codes", &dout.to_host().map_err(err)?, &want, 0.0)?;
    let got_bits = dbits.to_host().map_err(err)?;
    if got_bits != want_bits {
        return Err("bool outputs differ".to_owned());
    }
    out.push(("bits", got_bits.iter().map(|&b| b as i32 as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
fn casts(
    f: &[f32],
    d: &[f64],
    i: &[i32],
    u: &[u64],
    out_f: &mut [f32],
    out_d: &mut [f64],
    out_i: &mut [i64],
) {
    let k = grid_1d();
    if k < f.len() {
        let o = k * 4;
        out_i[o] = f[k] as i32 as i64;
        out_i[o + 1] = d[k] as u32 as i64;
        out_i[o + 2] = i[k] as u64 as i64;
        out_i[o + 3] = (u[k] as usize as u32) as i64 + (f[k] > 0.0) as i64;
        out_f[o] = i[k] as f32;
        out_f[o + 1] = d[k] as f32;
        out_f[o + 2] = u[k] as f32;
        out_f[o + 3] = (k as f32) * 0.25;
        out_d[o] = f[k] as f64;
        out_d[o + 1] = i[k] as f64;
        out_d[o + 2] = u[k] as f64;
        out_d[o + 3] = f[k].to_f64() * 0.1;
    }
}

fn case_casts(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    // Out-of-range float-to-int casts saturate in Rust and in PTX's cvt alike.
    let f: Vec<f32> = (0..n).map(|_| r.random_range(-3e9f32..3e9)).collect();
    let d: Vec<f64> = (0..n).map(|_| r.random_range(-1e10..1e10)).collect();
    let iv: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let u: Vec<u64> = (0..n).map(|_| r.random()).collect();
    let (df, dd, di, du) = (
        dev.to_device(&f).map_err(err)?,
        dev.to_device(&d).map_err(err)?,
        dev.to_device(&iv).map_err(err)?,
        dev.to_device(&u).map_err(err)?,
    );
    let mut of = poisoned(dev, n * 4, f32::NAN)?;
    let mut od = poisoned(dev, n * 4, f64::NAN)?;
    let mut oi = poisoned(dev, n * 4, i64::MIN + 7)?;
    launch!(casts[blocks(n, 256), 256](&df, &dd, &di, &du, &mut of, &mut od, &mut oi))
        .map_err(err)?;
    let (mut wf, mut wd, mut wi) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        wi.extend([
            f[k] as i32 as i64,
            d[k] as u32 as i64,
            iv[k] as u64 as i64,
            (u[k] as usize as u32) as i64 + (f[k] > 0.0) as i64,
        ]);
        wf.extend([iv[k] as f32, d[k] as f32, u[k] as f32, (k as f32) * 0.25]);
        wd.extend([f[k] as f64, iv[k] as f64, u[k] as f64, (f[k] as f64) * 0.1]);
    }
    let gi = oi.to_host().map_err(err)?;
    if gi != wi {
        let p = gi.iter().zip(&wi).position(|(g, w)| g != w).unwrap_or(0);
        return Err(format!(
            "integer casts: element {p}: got {}, want {}",
            gi[p], wi[p]
        ));
    }
    out.push(("ints", gi.iter().map(|&v| v as f64).collect()));
    check(&mut out, "f32", &of.to_host().map_err(err)?, &wf, 0.0)?;
    check(&mut out, "f64", &od.to_host().map_err(err)?, &wd, 0.0)?;
    Ok(out)
}

#[gpu_kernel]
fn f32_literals(x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        // Each step rounds to f32 in Rust; a C `double` literal would round differently.
        let t = x[i] * 0.1 + 1.0 / 3.0;
        let u = t / 7.0 - 0.3;
        y[i] = u * u - 2.5e-3;
    }
}

fn case_f32_literals(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 20_000;
    let x = uniform_f32(&mut r, n, -100.0, 100.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let mut dy = poisoned(dev, n, f32::NAN)?;
    launch!(f32_literals[blocks(n, 256), 256](&dx, &mut dy)).map_err(err)?;
    // The GPU may contract a*b+c into one FMA (NVRTC's default, as nvcc's); compute the
    // reference the same way so the check is exact and still catches double arithmetic.
    let want: Vec<f32> = x
        .iter()
        .map(|&v| {
            let t = v.mul_add(0.1, 1.0 / 3.0);
            let u = t / 7.0 - 0.3;
            u.mul_add(u, -2.5e-3)
        })
        .collect();
    let want_plain: Vec<f32> = x
        .iter()
        .map(|&v| {
            let t = v * 0.1 + 1.0 / 3.0;
            let u = t / 7.0 - 0.3;
            u * u - 2.5e-3
        })
        .collect();
    check_either(
        &mut out,
        "y",
        &dy.to_host().map_err(err)?,
        &want,
        &want_plain,
    )?;
    Ok(out)
}

// ----- control flow ---------------------------------------------------------------------

#[gpu_kernel]
fn if_expr(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        let v = x[i];
        let a = if v > 0.0 { v } else { -v };
        let b = if v > 1.0 {
            let t = v * 2.0;
            t + 1.0
        } else if v < -1.0 {
            let mut t = v;
            t -= 3.0;
            t
        } else {
            0.5
        };
        let c: f32;
        if a > 2.0 {
            c = a - 2.0;
        } else {
            c = if b == 0.5 { 7.0 } else { b };
        }
        out[i] = a + b * 10.0 + c * 100.0;
    }
}

fn case_if_expr(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 4_000;
    let x = uniform_f32(&mut r, n, -4.0, 4.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    launch!(if_expr[blocks(n, 256), 256](&dx, &mut d)).map_err(err)?;
    let want: Vec<f32> = x
        .iter()
        .map(|&v| {
            let a = if v > 0.0 { v } else { -v };
            let b = if v > 1.0 {
                v * 2.0 + 1.0
            } else if v < -1.0 {
                v - 3.0
            } else {
                0.5
            };
            let c = if a > 2.0 {
                a - 2.0
            } else if b == 0.5 {
                7.0
            } else {
                b
            };
            a + b * 10.0 + c * 100.0
        })
        .collect();
    check(&mut out, "out", &d.to_host().map_err(err)?, &want, 1e-6)?;
    Ok(out)
}

#[gpu_kernel]
fn loops(m: &[u32], out: &mut [u64]) {
    let i = grid_1d();
    if i >= m.len() {
        return;
    }
    let limit = m[i];
    // for over a range with continue
    let mut s1 = 0u64;
    for k in 0..limit {
        if k % 3 == 0 {
            continue;
        }
        s1 += k as u64;
    }
    // step_by with a step that does not divide the range
    let mut s2 = 0u64;
    for k in (1..limit).step_by(7) {
        s2 += k as u64 * 2;
    }
    // while with break
    let mut n = 0u32;
    let mut s3 = 0u64;
    while n < 1000 {
        n += 1;
        if n > limit {
            break;
        }
        s3 += (n * n) as u64;
    }
    // loop with break
    let mut c = limit as u64;
    let mut steps = 0u64;
    loop {
        if c <= 1 {
            break;
        }
        c = if c % 2 == 0 { c / 2 } else { 3 * c + 1 };
        steps += 1;
    }
    out[i * 4] = s1;
    out[i * 4 + 1] = s2;
    out[i * 4 + 2] = s3;
    if limit == 13 {
        return;
    }
    out[i * 4 + 3] = steps;
}

fn case_loops(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 500;
    let m: Vec<u32> = (0..n).map(|_| r.random_range(0..60)).collect();
    let dm = dev.to_device(&m).map_err(err)?;
    let mut d = poisoned(dev, n * 4, u64::MAX)?;
    launch!(loops[blocks(n, 64), 64](&dm, &mut d)).map_err(err)?;
    let mut want = Vec::new();
    for &limit in &m {
        let s1: u64 = (0..limit).filter(|k| k % 3 != 0).map(|k| k as u64).sum();
        let s2: u64 = (1..limit).step_by(7).map(|k| k as u64 * 2).sum();
        let s3: u64 = (1..=limit.min(1000)).map(|n| (n * n) as u64).sum();
        let mut c = limit as u64;
        let mut steps = 0;
        while c > 1 {
            c = if c % 2 == 0 { c / 2 } else { 3 * c + 1 };
            steps += 1;
        }
        want.extend([s1, s2, s3, if limit == 13 { u64::MAX } else { steps }]);
    }
    let got = d.to_host().map_err(err)?;
    if got != want {
        let p = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
        return Err(format!(
            "element {p} (m = {}): got {}, want {}",
            m[p / 4],
            got[p],
            want[p]
        ));
    }
    out.push(("out", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
fn compound(x: &[i32], f: &[f64], out: &mut [i32], outf: &mut [f64]) {
    let i = grid_1d();
    if i < x.len() {
        let x = x[i];
        let mut v = x;
        v += 3;
        v -= 1;
        v *= 5;
        v /= 2;
        v %= 1000;
        v &= 0x7ff;
        v |= 0x10;
        v ^= 0x3;
        v <<= 2u32;
        v >>= 1;
        out[i] = v;
        let float = f[i];
        let mut new = float;
        new += 1.5;
        new *= 2.0;
        new %= 3.0;
        new -= 0.25;
        new /= 4.0;
        let x = new;
        outf[i] = x;
    }
}

fn case_compound(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 3_000;
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-100_000..100_000)).collect();
    let f = uniform_f64(&mut r, n, -100.0, 100.0);
    let (dx, df) = (
        dev.to_device(&x).map_err(err)?,
        dev.to_device(&f).map_err(err)?,
    );
    let mut d = poisoned(dev, n, i32::MIN)?;
    let mut dfo = poisoned(dev, n, f64::NAN)?;
    launch!(compound[blocks(n, 256), 256](&dx, &df, &mut d, &mut dfo)).map_err(err)?;
    let want: Vec<i32> = x
        .iter()
        .map(|&x| {
            let mut v = x;
            v += 3;
            v -= 1;
            v *= 5;
            v /= 2;
            v %= 1000;
            v &= 0x7ff;
            v |= 0x10;
            v ^= 0x3;
            v <<= 2u32;
            v >>= 1;
            v
        })
        .collect();
    let wantf: Vec<f64> = f
        .iter()
        .map(|&v| (((v + 1.5) * 2.0) % 3.0 - 0.25) / 4.0)
        .collect();
    check(&mut out, "ints", &d.to_host().map_err(err)?, &want, 0.0)?;
    check(
        &mut out,
        "floats",
        &dfo.to_host().map_err(err)?,
        &wantf,
        0.0,
    )?;
    Ok(out)
}

// ----- math -----------------------------------------------------------------------------

#[gpu_kernel]
fn math_f32(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 16;
        out[o] = a.abs().sqrt();
        out[o + 1] = (a * 0.1).exp();
        out[o + 2] = a.abs().ln();
        out[o + 3] = a.sin();
        out[o + 4] = a.cos();
        out[o + 5] = a.tanh();
        out[o + 6] = a.abs().powf(b * 0.3);
        out[o + 7] = a.powi(3);
        out[o + 8] = a.floor() + a.ceil() * 2.0 + a.round() * 4.0 + a.trunc() * 8.0;
        out[o + 9] = a.mul_add(b, 1.0);
        out[o + 10] = a.min(b) - a.max(b);
        out[o + 11] = a.atan2(b);
        out[o + 12] = a.hypot(b);
        out[o + 13] = a.abs().log2() + a.abs().log10();
        out[o + 14] = (a * 0.05).tan() + (b * 0.1).atan();
        out[o + 15] = a.recip() + a.copysign(b);
    }
}

fn math_reference_f32(a: f32, b: f32) -> [f32; 16] {
    [
        a.abs().sqrt(),
        (a * 0.1).exp(),
        a.abs().ln(),
        a.sin(),
        a.cos(),
        a.tanh(),
        a.abs().powf(b * 0.3),
        a.powi(3),
        a.floor() + a.ceil() * 2.0 + a.round() * 4.0 + a.trunc() * 8.0,
        a.mul_add(b, 1.0),
        a.min(b) - a.max(b),
        a.atan2(b),
        a.hypot(b),
        a.abs().log2() + a.abs().log10(),
        (a * 0.05).tan() + (b * 0.1).atan(),
        a.recip() + a.copysign(b),
    ]
}

fn case_math_f32(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    let x: Vec<f32> = uniform_f32(&mut r, n, -8.0, 8.0)
        .into_iter()
        .map(|v| if v.abs() < 1e-3 { 0.5 } else { v })
        .collect();
    let y = uniform_f32(&mut r, n, -8.0, 8.0);
    let (dx, dy) = (
        dev.to_device(&x).map_err(err)?,
        dev.to_device(&y).map_err(err)?,
    );
    let mut d = poisoned(dev, n * 16, f32::NAN)?;
    launch!(math_f32[blocks(n, 128), 128](&dx, &dy, &mut d)).map_err(err)?;
    let want: Vec<f32> = (0..n)
        .flat_map(|i| math_reference_f32(x[i], y[i]))
        .collect();
    // CUDA's single-precision functions are within a few ulp of correctly rounded.
    check(&mut out, "out", &d.to_host().map_err(err)?, &want, 4e-6)?;
    Ok(out)
}

#[gpu_kernel]
fn math_generic<T: Float>(x: &[T], y: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        let a = x[i];
        let b = y[i];
        let o = i * 8;
        out[o] = a.abs().sqrt() + a.abs().cbrt();
        out[o + 1] = a.exp() - a.abs().ln();
        out[o + 2] = a.sin() * a.cos();
        out[o + 3] = a.tanh() + a.sinh().atan();
        out[o + 4] = a.abs().powf(b);
        out[o + 5] = a.powi(2) - b.powi(-1);
        out[o + 6] = a.mul_add(b, T::one()) + a.min(b).max(T::zero());
        out[o + 7] = (a / T::from_f64(16.0)).asin() + (b / T::from_f64(16.0)).acos();
    }
}

fn case_math_f64(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    let x: Vec<f64> = uniform_f64(&mut r, n, -8.0, 8.0)
        .into_iter()
        .map(|v| if v.abs() < 1e-3 { 0.5 } else { v })
        .collect();
    let y: Vec<f64> = uniform_f64(&mut r, n, -8.0, 8.0)
        .into_iter()
        .map(|v| if v.abs() < 1e-3 { 0.5 } else { v })
        .collect();
    let (dx, dy) = (
        dev.to_device(&x).map_err(err)?,
        dev.to_device(&y).map_err(err)?,
    );
    let mut d = poisoned(dev, n * 8, f64::NAN)?;
    launch!(math_generic[blocks(n, 128), 128](&dx, &dy, &mut d)).map_err(err)?;
    let want: Vec<f64> = (0..n)
        .flat_map(|i| {
            let (a, b) = (x[i], y[i]);
            [
                a.abs().sqrt() + a.abs().cbrt(),
                a.exp() - a.abs().ln(),
                a.sin() * a.cos(),
                a.tanh() + a.sinh().atan(),
                a.abs().powf(b),
                a.powi(2) - b.powi(-1),
                a.mul_add(b, 1.0) + a.min(b).max(0.0),
                (a / 16.0).asin() + (b / 16.0).acos(),
            ]
        })
        .collect();
    check(&mut out, "f64", &d.to_host().map_err(err)?, &want, 1e-13)?;
    Ok(out)
}

// ----- geometry -------------------------------------------------------------------------

#[gpu_kernel]
fn geometry_2d(width: usize, height: usize, out: &mut [u32]) {
    let (x, y) = grid_2d();
    if x < width && y < height {
        let o = (y * width + x) * 6;
        out[o] = thread_idx().x;
        out[o + 1] = thread_idx().y;
        out[o + 2] = block_idx().x + block_idx().y * 1000;
        out[o + 3] = block_dim().x * 100 + block_dim().y;
        out[o + 4] = grid_dim().x * 100 + grid_dim().y;
        out[o + 5] = (gridsize_2d().0 * 1000 + gridsize_2d().1) as u32;
    }
}

#[gpu_kernel]
fn geometry_3d(nx: usize, ny: usize, nz: usize, out: &mut [u64]) {
    let (x, y, z) = grid_3d();
    let (sx, sy, _) = gridsize_3d();
    if x < nx && y < ny && z < nz {
        out[(z * ny + y) * nx + x] = (x * 1_000_000 + y * 1000 + z + sx * sy * 0) as u64
            + (thread_idx().z as u64) * 1_000_000_000_000
            + (block_dim().z as u64 + grid_dim().z as u64 * 10) * 100_000_000_000_000;
    }
}

fn case_geometry(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (w, h) = (r.random_range(20..70usize), r.random_range(10..40usize));
    let (bx, by) = (16u32, 8u32);
    let (gx, gy) = ((w as u32).div_ceil(bx), (h as u32).div_ceil(by));
    let mut d = poisoned(dev, w * h * 6, u32::MAX)?;
    launch!(geometry_2d[(gx, gy), (bx, by)](w, h, &mut d)).map_err(err)?;
    let mut want = Vec::new();
    for y in 0..h as u32 {
        for x in 0..w as u32 {
            want.extend([
                x % bx,
                y % by,
                x / bx + (y / by) * 1000,
                bx * 100 + by,
                gx * 100 + gy,
                (gx * bx) * 1000 + gy * by,
            ]);
        }
    }
    check(&mut out, "2d", &d.to_host().map_err(err)?, &want, 0.0)?;

    let (nx, ny, nz) = (
        r.random_range(5..20usize),
        r.random_range(3..9usize),
        r.random_range(2..7usize),
    );
    let (bx, by, bz) = (4u32, 2u32, 2u32);
    let grid = (
        (nx as u32).div_ceil(bx),
        (ny as u32).div_ceil(by),
        (nz as u32).div_ceil(bz),
    );
    let mut d = poisoned(dev, nx * ny * nz, u64::MAX)?;
    launch!(geometry_3d[grid, (bx, by, bz)](nx, ny, nz, &mut d)).map_err(err)?;
    let mut want = Vec::new();
    for z in 0..nz as u64 {
        for y in 0..ny as u64 {
            for x in 0..nx as u64 {
                want.push(
                    x * 1_000_000
                        + y * 1000
                        + z
                        + (z % bz as u64) * 1_000_000_000_000
                        + (bz as u64 + grid.2 as u64 * 10) * 100_000_000_000_000,
                );
            }
        }
    }
    let got = d.to_host().map_err(err)?;
    if got != want {
        return Err("3-D geometry mismatch".to_owned());
    }
    out.push(("3d", got.iter().map(|&v| (v % (1 << 52)) as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
fn grid_stride(x: &[f32], y: &mut [f32]) {
    let start = grid_1d();
    let stride = gridsize_1d();
    for i in (start..x.len()).step_by(stride) {
        y[i] = x[i] * 2.0 + 1.0;
    }
}

fn case_grid_stride(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(10_000..20_000);
    let x = uniform_f32(&mut r, n, -5.0, 5.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    // Far fewer threads than elements: each thread covers many.
    launch!(grid_stride[7, 64](&dx, &mut d)).map_err(err)?;
    let want: Vec<f32> = x.iter().map(|v| v.mul_add(2.0, 1.0)).collect();
    check(&mut out, "y", &d.to_host().map_err(err)?, &want, 1e-6)?;
    Ok(out)
}

#[gpu_kernel]
fn constants<T: Float>(x: &[T], out: &mut [T], ints: &mut [i64]) {
    let i = grid_1d();
    if i < x.len() {
        out[i] = x[i] * T::from_f64(std::f64::consts::PI) + T::from_usize(i) - T::from_i32(-3);
        ints[i] = i32::MAX as i64 + i32::MIN as i64 + u32::MAX as i64 + (f32::EPSILON * 1e7) as i64;
    }
}

fn case_constants(dev: &Device, seed: u64) -> Result<Outputs, String> {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 1_000;
    let x = uniform_f32(&mut r, n, -5.0, 5.0);
    let dx = dev.to_device(&x).map_err(err)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    let mut di = poisoned(dev, n, 0i64)?;
    launch!(constants[blocks(n, 256), 256](&dx, &mut d, &mut di)).map_err(err)?;
    let want: Vec<f32> = x
        .iter()
        .enumerate()
        .map(|(i, v)| v * std::f64::consts::PI as f32 + i as f32 + 3.0)
        .collect();
    check(&mut out, "f32", &d.to_host().map_err(err)?, &want, 1e-6)?;
    let wi =
        vec![i32::MAX as i64 + i32::MIN as i64 + u32::MAX as i64 + (f32::EPSILON * 1e7) as i64; n];
    let gi = di.to_host().map_err(err)?;
    if gi != wi {
        return Err(format!("integer constants: got {}, want {}", gi[0], wi[0]));
    }
    out.push(("ints", gi.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

/// Reads one element past the end: the simulator must name kernel, parameter, index and
/// length.
#[gpu_kernel]
pub fn out_of_bounds(a: &[f32], b: &mut [f32]) {
    let i = grid_1d();
    if i < b.len() {
        b[i] = a[i + 1];
    }
}
