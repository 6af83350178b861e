//! Iterator loops and reductions, inclusive and reversed ranges, labelled loops, `loop`
//! values: the kernels written as everyday Rust, the references written with Rust's own
//! iterators (so the two agree by construction of Rust's semantics, not of ours).

use gpu_runtime::prelude::*;

use super::support::*;
use rand::Rng;

/// `fmad = false`: the sums of products keep Rust's two roundings, so the GPU agrees bit for
/// bit (tolerance 0).
#[gpu_kernel(fmad = false)]
pub fn array_iterators(x: &[f32], w: &[f32], out: &mut [f32], inv_empty: &mut [f32]) {
    let i = grid_1d();
    if i >= out.len() {
        return;
    }
    let mut s = 0.0f32;
    for (k, &wk) in w.iter().enumerate() {
        s += wk * (k as f32);
    }
    let mut t = 0.0f32;
    for (a, b) in w.iter().zip(x.iter().skip(i)) {
        t += a * b;
    }
    let mut r = 0.0f32;
    for v in w.iter().rev().step_by(3) {
        r = r * 0.5 + *v;
    }
    let mut q = 0.0f32;
    for (j, v) in x.iter().skip(i).take(5).rev().enumerate() {
        q += (j as f32 + 1.0) * v;
    }
    let total: f32 = w.iter().map(|v| v * 2.0).sum();
    let dot = w
        .iter()
        .zip(x.iter())
        .map(|(a, b)| a * b)
        .fold(0.0f32, |acc, p| acc + p);
    let prod = w.iter().take(4).copied().product::<f32>();
    let big = w.iter().skip(i % 3).count();
    let any = w.iter().any(|&v| v > x[i]);
    let all = x.iter().skip(i).take(3).all(|v| *v > -0.5);
    let mut each = 0.0f32;
    w.iter().for_each(|v| each += v * v);
    out[i] = s
        + t * 3.0
        + r * 5.0
        + total * 7.0
        + dot
        + prod
        + big as f32
        + if any { 11.0 } else { 0.0 }
        + if all { 13.0 } else { 0.0 }
        + each
        + q * 17.0;
    let empty: f32 = w.iter().take(0).sum();
    inv_empty[i] = 1.0 / empty;
}

/// What `array_iterators` computes, with Rust's iterators.
fn array_iterators_ref(x: &[f32], w: &[f32], i: usize) -> (f32, f32) {
    let mut s = 0.0f32;
    for (k, &wk) in w.iter().enumerate() {
        s += wk * (k as f32);
    }
    let mut t = 0.0f32;
    for (a, b) in w.iter().zip(x.iter().skip(i)) {
        t += a * b;
    }
    let mut r = 0.0f32;
    for v in w.iter().rev().step_by(3) {
        r = r * 0.5 + *v;
    }
    let mut q = 0.0f32;
    for (j, v) in x.iter().skip(i).take(5).rev().enumerate() {
        q += (j as f32 + 1.0) * v;
    }
    let total: f32 = w.iter().map(|v| v * 2.0).sum();
    let dot = w
        .iter()
        .zip(x.iter())
        .map(|(a, b)| a * b)
        .fold(0.0f32, |acc, p| acc + p);
    let prod = w.iter().take(4).copied().product::<f32>();
    let big = w.iter().skip(i % 3).count();
    let any = w.iter().any(|&v| v > x[i]);
    let all = x.iter().skip(i).take(3).all(|v| *v > -0.5);
    let mut each = 0.0f32;
    w.iter().for_each(|v| each += v * v);
    let out = s
        + t * 3.0
        + r * 5.0
        + total * 7.0
        + dot
        + prod
        + big as f32
        + if any { 11.0 } else { 0.0 }
        + if all { 13.0 } else { 0.0 }
        + each
        + q * 17.0;
    let empty: f32 = w.iter().take(0).sum();
    (out, 1.0 / empty)
}

pub fn case_array_iterators(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 300;
    let x = uniform_f32(&mut r, n, -1.0, 1.0);
    let wn = r.random_range(5..40);
    let w = uniform_f32(&mut r, wn, -1.0, 1.0);
    let (dx, dw) = (dev.to_device(&x)?, dev.to_device(&w)?);
    let mut d = poisoned(dev, n, f32::NAN)?;
    let mut e = poisoned(dev, n, f32::NAN)?;
    launch!(array_iterators[blocks(n, 64), 64](&dx, &dw, &mut d, &mut e))?;
    let (want, want_e): (Vec<f32>, Vec<f32>) =
        (0..n).map(|i| array_iterators_ref(&x, &w, i)).unzip();
    check(&mut out, "out", &d.to_host()?, &want, 0.0)?;
    // The sum of nothing is -0.0, as Rust's float `sum` gives: 1 / -0.0 = -inf.
    check(&mut out, "inv_empty", &e.to_host()?, &want_e, 0.0)?;
    Ok(out)
}

#[gpu_kernel]
pub fn range_iterators(m: &[u32], w: &[u32], out: &mut [u64]) {
    let i = grid_1d();
    if i >= m.len() {
        return;
    }
    let n = m[i] % 40;
    let mut a = 0u64;
    for k in 0..=n {
        a += k as u64;
    }
    for k in (0..n).rev() {
        a = a * 3 % 1000003 + k as u64;
    }
    for k in (1..=n).rev() {
        a = a * 5 % 1000003 + k as u64;
    }
    let mut c = 0u64;
    for b in 250u8..=u8::MAX {
        c += b as u64;
    }
    for b in (i8::MIN..=-126i8).rev() {
        c += (b as i64 + 200) as u64;
    }
    for (j, k) in (5..n + 5).enumerate() {
        c += (j as u64) * (k as u64);
    }
    for (k, &wv) in (0..n).zip(w.iter()) {
        c += (k * wv) as u64 % 7;
    }
    let odd: u32 = (0..n).map(|k| k * 2 + 1).sum();
    let hit = (1..=n).any(|k| k * k == n);
    let mut d = 0u64;
    'outer: for p in 0..n {
        let mut q = 0;
        while q < n {
            q += 1;
            if q > p {
                continue 'outer;
            }
            if p * q > 50 {
                break 'outer;
            }
            d += (p * q) as u64;
        }
    }
    let mut e = 0u32;
    let found = loop {
        e += 1;
        if e * e > n {
            break e;
        }
    };
    // The range keeps the end it was made with, whatever the body does to the name.
    let mut hi = n;
    let mut g = 0u64;
    for k in 0..=hi {
        if k == 2 {
            hi = 0;
        }
        g += k as u64 + hi as u64;
    }
    let mut f = 0u64;
    'rows: loop {
        f += 1;
        for k in 0..n {
            if k == 3 {
                continue 'rows;
            }
            if f > 4 || k + f as u32 > 20 {
                break 'rows;
            }
        }
        if f > 2 {
            break;
        }
    }
    out[i] = a
        + c * 7
        + d * 11
        + found as u64 * 13
        + odd as u64 * 17
        + if hit { 19 } else { 0 }
        + f * 23
        + g * 29;
}

// Mirrors the kernel, a range bound the body changes included.
#[allow(clippy::mut_range_bound)]
fn range_iterators_ref(n: u32, w: &[u32]) -> u64 {
    let mut a = 0u64;
    for k in 0..=n {
        a += k as u64;
    }
    for k in (0..n).rev() {
        a = a * 3 % 1000003 + k as u64;
    }
    for k in (1..=n).rev() {
        a = a * 5 % 1000003 + k as u64;
    }
    let mut c = 0u64;
    for b in 250u8..=u8::MAX {
        c += b as u64;
    }
    for b in (i8::MIN..=-126i8).rev() {
        c += (b as i64 + 200) as u64;
    }
    for (j, k) in (5..n + 5).enumerate() {
        c += (j as u64) * (k as u64);
    }
    for (k, &wv) in (0..n).zip(w.iter()) {
        c += (k * wv) as u64 % 7;
    }
    let odd: u32 = (0..n).map(|k| k * 2 + 1).sum();
    let hit = (1..=n).any(|k| k * k == n);
    let mut d = 0u64;
    'outer: for p in 0..n {
        let mut q = 0;
        while q < n {
            q += 1;
            if q > p {
                continue 'outer;
            }
            if p * q > 50 {
                break 'outer;
            }
            d += (p * q) as u64;
        }
    }
    let mut e = 0u32;
    let found = loop {
        e += 1;
        if e * e > n {
            break e;
        }
    };
    // The range keeps the end it was made with, whatever the body does to the name.
    let mut hi = n;
    let mut g = 0u64;
    for k in 0..=hi {
        if k == 2 {
            hi = 0;
        }
        g += k as u64 + hi as u64;
    }
    let mut f = 0u64;
    'rows: loop {
        f += 1;
        for k in 0..n {
            if k == 3 {
                continue 'rows;
            }
            if f > 4 || k + f as u32 > 20 {
                break 'rows;
            }
        }
        if f > 2 {
            break;
        }
    }
    a + c * 7
        + d * 11
        + found as u64 * 13
        + odd as u64 * 17
        + if hit { 19 } else { 0 }
        + f * 23
        + g * 29
}

pub fn case_range_iterators(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 400;
    let m: Vec<u32> = (0..n).map(|_| r.random_range(0..200)).collect();
    let w: Vec<u32> = (0..r.random_range(3..50))
        .map(|_| r.random_range(0..1000))
        .collect();
    let (dm, dw) = (dev.to_device(&m)?, dev.to_device(&w)?);
    let mut d = poisoned(dev, n, u64::MAX)?;
    launch!(range_iterators[blocks(n, 64), 64](&dm, &dw, &mut d))?;
    let want: Vec<u64> = m.iter().map(|&v| range_iterators_ref(v % 40, &w)).collect();
    let got = d.to_host()?;
    if let Some(p) = got.iter().zip(&want).position(|(g, w)| g != w) {
        return Err(format!(
            "element {p} (m = {}): got {}, want {}",
            m[p], got[p], want[p]
        )
        .into());
    }
    out.push(("out", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}
