//! Control flow: `if` as a value, loops of every kind, compound assignment, shadowing.

use gpu_runtime::prelude::*;

use super::support::*;
use rand::Rng;

#[gpu_kernel]
pub fn if_expr(x: &[f32], out: &mut [f32]) {
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

pub fn case_if_expr(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 4_000;
    let x = uniform_f32(&mut r, n, -4.0, 4.0);
    let dx = dev.to_device(&x)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    launch!(if_expr[blocks(n, 256), 256](&dx, &mut d))?;
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
    check(&mut out, "out", &d.to_host()?, &want, 1e-6)?;
    Ok(out)
}

#[gpu_kernel]
pub fn loops(m: &[u32], out: &mut [u64]) {
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

pub fn case_loops(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 500;
    let m: Vec<u32> = (0..n).map(|_| r.random_range(0..60)).collect();
    let dm = dev.to_device(&m)?;
    let mut d = poisoned(dev, n * 4, u64::MAX)?;
    launch!(loops[blocks(n, 64), 64](&dm, &mut d))?;
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
    let got = d.to_host()?;
    if got != want {
        let p = got.iter().zip(&want).position(|(g, w)| g != w).unwrap_or(0);
        return Err(format!(
            "element {p} (m = {}): got {}, want {}",
            m[p / 4],
            got[p],
            want[p]
        )
        .into());
    }
    out.push(("out", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
pub fn compound(x: &[i32], f: &[f64], out: &mut [i32], outf: &mut [f64]) {
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

pub fn case_compound(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 3_000;
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-100_000..100_000)).collect();
    let f = uniform_f64(&mut r, n, -100.0, 100.0);
    let (dx, df) = (dev.to_device(&x)?, dev.to_device(&f)?);
    let mut d = poisoned(dev, n, i32::MIN)?;
    let mut dfo = poisoned(dev, n, f64::NAN)?;
    launch!(compound[blocks(n, 256), 256](&dx, &df, &mut d, &mut dfo))?;
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
    check(&mut out, "ints", &d.to_host()?, &want, 0.0)?;
    check(&mut out, "floats", &dfo.to_host()?, &wantf, 0.0)?;
    Ok(out)
}
