//! What every case uses: seeded random inputs, poisoned outputs, and comparisons with
//! the CPU reference that say where they differ.

use gpu_runtime::prelude::*;
use gpu_runtime::Dtype;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub use super::{CaseResult, Outputs};

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn uniform_f32(r: &mut StdRng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| r.random_range(lo..hi)).collect()
}

pub fn uniform_f64(r: &mut StdRng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| r.random_range(lo..hi)).collect()
}

pub fn blocks(n: usize, threads: usize) -> usize {
    n.div_ceil(threads)
}

/// An output array filled with a value the kernel never writes, so a missed element fails.
pub fn poisoned<T: Dtype>(dev: &Device, n: usize, poison: T) -> Result<DeviceArray<T>, GpuError> {
    dev.to_device(&vec![poison; n])
}

/// Compare `got` with `want`: exactly, or within `rel` relative error (absolute below 1).
/// A NaN passes only against a NaN (its payload is left open, as Rust leaves it), so a
/// NaN-poisoned element the kernel missed fails wherever the answer is a number.
pub fn compare(name: &str, got: &[f64], want: &[f64], rel: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{name}: length {} != {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if g.is_nan() || w.is_nan() {
            g.is_nan() && w.is_nan()
        } else if rel == 0.0 {
            g.to_bits() == w.to_bits() || g == w
        } else {
            (g - w).abs() <= rel * w.abs().max(1.0) || g == w
        };
        if !ok {
            return Err(format!(
                "{name}[{i}]: got {g:?}, want {w:?} (tolerance {rel})"
            ));
        }
    }
    Ok(())
}

pub fn f64s<T: Copy + Into<f64>>(v: &[T]) -> Vec<f64> {
    v.iter().map(|&x| x.into()).collect()
}

pub fn check<T: Copy + Into<f64>>(
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
pub fn check_either<T: Copy + Into<f64> + PartialEq + std::fmt::Debug>(
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

/// Row `i` of `got` (`width` elements from `width * i`) must equal `want(i)` bit for bit
/// (as `f64`s, which keep every `f32` apart), for every row; the error names the first
/// row that differs, with both.
pub fn rows_bitwise<T: Copy + Into<f64> + std::fmt::Debug, const W: usize>(
    what: &str,
    got: &[T],
    want: impl Fn(usize) -> [T; W],
) -> Result<(), String> {
    for (i, row) in got.chunks_exact(W).enumerate() {
        let w = want(i);
        let same = row
            .iter()
            .zip(&w)
            .all(|(&g, &x)| g.into().to_bits() == x.into().to_bits());
        if !same {
            return Err(format!("{what} at {i}: got {row:?}, want {w:?}"));
        }
    }
    Ok(())
}
