//! Arrays as Rust writes them: array literals of 1 to 3 dimensions (elements computed
//! once each, left to right), with a type annotation, changed after, indexed at run
//! time, an element naming an outer binding of the array's own name; byte literals. Each against the same Rust on the host.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// What `array_literals` writes for one element, as the host computes it.
pub fn literal_results(x: f32, k: u32) -> [f32; 6] {
    let v = [x, 2.5, x * x, -1.0];
    let w: [[u32; 3]; 2] = [[k, 2, 3], [4, k % 7, 6]];
    let cube = [[[1i32, 2], [3, 4]], [[5, 6], [7, k as i32 - 500]]];
    let mut m = [[x, 0.0], [0.0, x + 1.0]];
    m[1][0] += v[(k % 4) as usize];
    let bytes = [b'G', b'P', b'U', b'0' + (k % 10) as u8];
    let j = (k % 3) as usize;
    let shadow = x * 0.5;
    let shadow = [shadow, shadow + 1.0];
    [
        v[0] + v[1] + v[2] + v[3],
        (w[0][j] + w[1][j]) as f32,
        cube[(k % 2) as usize][1][(k / 2 % 2) as usize] as f32,
        m[0][0] + m[1][0] + m[1][1],
        (bytes[0] as u32 + bytes[(k % 4) as usize] as u32) as f32,
        b'z' as f32 + shadow[1],
    ]
}

#[gpu_kernel]
pub fn array_literals(xs: &[f32], ks: &[u32], out: &mut [f32]) {
    let i = grid_1d();
    if i < xs.len() && i < ks.len() && 6 * i + 5 < out.len() {
        let (x, k) = (xs[i], ks[i]);
        let v = [x, 2.5, x * x, -1.0];
        let w: [[u32; 3]; 2] = [[k, 2, 3], [4, k % 7, 6]];
        let cube = [[[1i32, 2], [3, 4]], [[5, 6], [7, k as i32 - 500]]];
        let mut m = [[x, 0.0], [0.0, x + 1.0]];
        m[1][0] += v[(k % 4) as usize];
        let bytes = [b'G', b'P', b'U', b'0' + (k % 10) as u8];
        let j = (k % 3) as usize;
        out[6 * i] = v[0] + v[1] + v[2] + v[3];
        out[6 * i + 1] = (w[0][j] + w[1][j]) as f32;
        out[6 * i + 2] = cube[(k % 2) as usize][1][(k / 2 % 2) as usize] as f32;
        out[6 * i + 3] = m[0][0] + m[1][0] + m[1][1];
        out[6 * i + 4] = (bytes[0] as u32 + bytes[(k % 4) as usize] as u32) as f32;
        let shadow = x * 0.5;
        let shadow = [shadow, shadow + 1.0];
        out[6 * i + 5] = b'z' as f32 + shadow[1];
    }
}

pub fn case_array_literals(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(200..700);
    let xs = uniform_f32(&mut r, len, -100.0, 100.0);
    let ks: Vec<u32> = (0..len).map(|_| r.random_range(0..1000)).collect();
    let (dx, dk) = (dev.to_device(&xs)?, dev.to_device(&ks)?);
    let mut dout = poisoned(dev, 6 * len, f32::NAN)?;
    launch!(array_literals[blocks(len, 64), 64](&dx, &dk, &mut dout))?;
    let got = dout.to_host()?;
    rows_bitwise("array literals", &got, |i| literal_results(xs[i], ks[i]))?;
    Ok(vec![(
        "array_literals",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}

#[gpu_device]
fn sum_all(a: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for j in 0..a.len() {
        s += a[j];
    }
    s
}

#[gpu_device]
fn add_to_each(a: &mut [f32], by: f32) {
    for j in 0..a.len() {
        a[j] += by;
    }
}

/// What `local_arrays_lent` writes for one element, as the host computes it.
pub fn lent_result(x: f32, k: u32) -> f32 {
    let mut v = [x, 2.0, k as f32, -x];
    let by = (k % 5) as f32;
    for e in v.iter_mut() {
        *e += by;
    }
    let mut s = 0.0f32;
    for e in v {
        s += e;
    }
    s + v[2]
}

/// 1-D local arrays lent to device functions (`f(&v)`, `f(&mut v)`), as Rust lends them.
#[gpu_kernel]
pub fn local_arrays_lent(xs: &[f32], ks: &[u32], out: &mut [f32]) {
    let i = grid_1d();
    if i < xs.len() && i < ks.len() && i < out.len() {
        let (x, k) = (xs[i], ks[i]);
        let mut v = [x, 2.0, k as f32, -x];
        add_to_each(&mut v, (k % 5) as f32);
        let s: f32 = sum_all(&v);
        out[i] = s + v[2];
    }
}

pub fn case_local_arrays_lent(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(200..700);
    let xs = uniform_f32(&mut r, len, -100.0, 100.0);
    let ks: Vec<u32> = (0..len).map(|_| r.random_range(0..1000)).collect();
    let (dx, dk) = (dev.to_device(&xs)?, dev.to_device(&ks)?);
    let mut dout = poisoned(dev, len, f32::NAN)?;
    launch!(local_arrays_lent[blocks(len, 64), 64](&dx, &dk, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let want = lent_result(xs[i], ks[i]);
        if got[i].to_bits() != want.to_bits() {
            return Err(format!(
                "local arrays lent at {i}: x = {}, k = {}: got {}, want {want}",
                xs[i], ks[i], got[i]
            )
            .into());
        }
    }
    Ok(vec![(
        "local_arrays_lent",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}
