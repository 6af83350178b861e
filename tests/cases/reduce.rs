//! `#[gpu_reduce]`: sums, maxima and map-reduces over every length class (empty, one
//! element, a block's edges, many blocks, the block cap), against the host on fresh
//! random inputs; the values are compared bit for bit between the GPU and the simulator
//! by the suite, and two runs of one reduction give the same bits.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// A sum over any numeric dtype.
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

/// `x * y`, summed with `add`: a dot product, generic.
#[gpu_reduce(with = add)]
pub fn product<T: Float>(x: T, y: T) -> T {
    x * y
}

/// `|x|` reduced with `larger`.
#[gpu_reduce(with = self::larger)]
pub fn magnitude(x: f32) -> f32 {
    x.abs()
}

/// The lengths tried: the edges of a warp, a block (256 threads of four values each) and
/// the first pass's block cap (1024 blocks), and random ones.
fn lengths(r: &mut impl Rng) -> Vec<usize> {
    let mut n = vec![
        0,
        1,
        2,
        3,
        5,
        31,
        32,
        33,
        255,
        256,
        257,
        1025,
        2048 + 7,
        3073,
    ];
    n.push(r.random_range(3_000..20_000));
    n
}

pub fn case_reduce_sugar(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    // The same lengths on both backends (the suite compares their values); the first
    // pass's fold of many elements per thread, past 1024 blocks, is checked on the GPU by
    // the suite against a model of the order (`gpu_suite.rs`).
    let ns = lengths(&mut r);
    let (mut sums, mut maxes, mut ints, mut dots, mut mags) =
        (vec![], vec![], vec![], vec![], vec![]);
    for &n in &ns {
        let x = uniform_f32(&mut r, n, -1.0, 1.0);
        let y = uniform_f64(&mut r, n, -1.0, 1.0);
        let z: Vec<f64> = uniform_f64(&mut r, n, -1.0, 1.0);
        let k: Vec<i64> = (0..n)
            .map(|_| r.random_range(-1_000_000..1_000_000))
            .collect();
        let (dx, dy, dz, dk) = (
            dev.to_device(&x)?,
            dev.to_device(&y)?,
            dev.to_device(&z)?,
            dev.to_device(&k)?,
        );
        let init = r.random_range(-4.0f32..4.0);

        let sum = add::reduce(&dx, init)?;
        if add::reduce(&dx, init)?.to_bits() != sum.to_bits() {
            return Err(format!("n = {n}: two sums differ").into());
        }
        let want = init as f64 + x.iter().map(|&v| v as f64).sum::<f64>();
        if (sum as f64 - want).abs() > 1e-5 * (n as f64 + 1.0).sqrt() * 8.0 {
            return Err(format!("n = {n}: sum {sum}, want {want}").into());
        }
        sums.push(sum as f64);

        let max = larger::reduce(&dx, f32::NEG_INFINITY)?;
        let want = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        if max != want {
            return Err(format!("n = {n}: max {max}, want {want}").into());
        }
        maxes.push(max as f64);

        let total = add::reduce(&dk, 7i64)?;
        let want = 7 + k.iter().sum::<i64>();
        if total != want {
            return Err(format!("n = {n}: integer sum {total}, want {want}").into());
        }
        ints.push(total as f64);

        let dot = product::reduce(&dy, &dz, 0.0f64)?;
        let want: f64 = y.iter().zip(&z).map(|(a, b)| a * b).sum();
        if (dot - want).abs() > 1e-12 * (n as f64 + 1.0) {
            return Err(format!("n = {n}: dot {dot}, want {want}").into());
        }
        dots.push(dot);

        let mag = magnitude::reduce(&dx, 0.0)?;
        let want = x.iter().map(|v| v.abs()).fold(0.0f32, f32::max);
        if mag != want {
            return Err(format!("n = {n}: largest magnitude {mag}, want {want}").into());
        }
        mags.push(mag as f64);
    }
    // Mismatched lengths and an empty output are errors, not launches.
    let (a, b) = (dev.zeros::<f64>(10)?, dev.zeros::<f64>(11)?);
    match product::reduce(&a, &b, 0.0) {
        Err(GpuError::InvalidArgument(m)) if m.contains("11") => {}
        other => return Err(format!("lengths 10 and 11: {other:?}").into()),
    }
    let mut empty = dev.zeros::<f64>(0)?;
    match add::reduce_into(&a, 0.0, &mut empty) {
        Err(GpuError::InvalidArgument(m)) if m.contains("empty") => {}
        other => return Err(format!("an empty output: {other:?}").into()),
    }
    out.push(("sums f32", sums));
    out.push(("maxima f32", maxes));
    out.push(("sums i64", ints));
    out.push(("dot products f64", dots));
    out.push(("largest magnitudes f32", mags));
    Ok(out)
}
