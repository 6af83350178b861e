//! Closures bound to locals: called in the kernel, capturing as Rust does (an `Fn` reads
//! its captures as they were when it was made, even after a later `let` of the same name;
//! an `FnMut` changes the caller's local), typed parameters, a closure calling another,
//! `move` closures. Each against the same Rust on the host (no `a * b + c`, which the GPU
//! may contract into one rounding unless `fmad = false`).

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// The five results of `closures` for one element, as the host computes them.
pub fn closure_results(x: f32, k: i32) -> [f32; 5] {
    let scale = 2.5f32;
    let affine = |v: f32| v / scale + 1.0;
    let scale = 100.0f32; // a later `let` of the name: the closure still reads 2.5
    let r0 = affine(x) + scale * 0.0;
    let mut count = 0i32;
    let mut bump = |by: i32| count += by;
    bump(k);
    bump(3);
    let r1 = count as f32;
    let twice = |v: f32| affine(affine(v));
    let r2 = twice(x);
    let base = k;
    let offset = move |v: i32| v + base;
    let r3 = offset(7) as f32;
    let mut n = k;
    let mut next = move || {
        n += 1;
        n
    };
    let (a1, a2) = (next(), next());
    n += 10;
    let r4 = (a1 + a2 + n) as f32;
    [r0, r1, r2, r3, r4]
}

#[gpu_kernel]
pub fn closures(xs: &[f32], ks: &[i32], out: &mut [f32]) {
    let i = grid_1d();
    if i < xs.len() && i < ks.len() && 5 * i + 4 < out.len() {
        let (x, k) = (xs[i], ks[i]);
        let scale = 2.5f32;
        let affine = |v: f32| v / scale + 1.0;
        let scale = 100.0f32;
        out[5 * i] = affine(x) + scale * 0.0;
        let mut count = 0i32;
        let mut bump = |by: i32| count += by;
        bump(k);
        bump(3);
        out[5 * i + 1] = count as f32;
        let twice = |v: f32| affine(affine(v));
        out[5 * i + 2] = twice(x);
        let base = k;
        let offset = move |v: i32| v + base;
        out[5 * i + 3] = offset(7) as f32;
        let mut n = k;
        let mut next = move || {
            n += 1;
            n
        };
        let a1 = next();
        let a2 = next();
        n += 10;
        out[5 * i + 4] = (a1 + a2 + n) as f32;
    }
}

pub fn case_closures(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(200..700);
    let xs = uniform_f32(&mut r, len, -100.0, 100.0);
    let ks: Vec<i32> = (0..len).map(|_| r.random_range(-1000..1000)).collect();
    let (dx, dk) = (dev.to_device(&xs)?, dev.to_device(&ks)?);
    let mut dout = poisoned(dev, 5 * len, f32::NAN)?;
    launch!(closures[blocks(len, 64), 64](&dx, &dk, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let want = closure_results(xs[i], ks[i]);
        let same = got[5 * i..5 * i + 5]
            .iter()
            .zip(&want)
            .all(|(g, w)| g.to_bits() == w.to_bits());
        if !same {
            return Err(format!(
                "closures at {i}: x = {}, k = {}: got {:?}, want {want:?}",
                xs[i],
                ks[i],
                &got[5 * i..5 * i + 5]
            )
            .into());
        }
    }
    Ok(vec![(
        "closures",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}
