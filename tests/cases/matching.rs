//! `match` and `matches!`: literals, ranges, `|`, guards, bindings, constants, tuples, as
//! a statement and as a value, in kernels and device functions.

use gpu_runtime::prelude::*;

use super::support::*;
use rand::Rng;

pub const LIMIT: u32 = 17;

#[gpu_device]
pub fn classify(v: u32) -> u32 {
    match v % 6 {
        0 => 10,
        1 | 2 => 20,
        k => k * 3,
    }
}

#[gpu_kernel]
pub fn match_forms(m: &[u32], flags: &[u32], out: &mut [i64]) {
    let i = grid_1d();
    if i >= m.len() {
        return;
    }
    let v = m[i] % 50;
    let f = flags[i] % 2 == 1;
    let a: i64 = match v {
        0 => 100,
        1 | 2 | 3 => 200,
        4..=9 => 300 + v as i64,
        LIMIT => 1717,
        x if x % 7 == 0 => 400 + x as i64,
        20..30 => 500,
        big @ 40.. => big as i64 * 2,
        _ => -1,
    };
    let b = match (v % 3, f) {
        (0, true) => 1,
        (0, false) => 2,
        (_, true) if v > 25 => 3,
        // Alternatives binding one name: one arm each, the guard after each.
        (r @ 1, _) | (r @ 2, false) if v > 4 => 20 + r as i64,
        (r, _) => 10 + r as i64,
    };
    let c = match f {
        true => 5,
        false => 6,
    };
    let mut d = 0i64;
    match v % 4 {
        0 => d += 1,
        1 => {
            d -= 1;
        }
        _ => {}
    }
    let e = if matches!(v, 10..=19 | 33) { 7 } else { 0 };
    let g = if matches!(v % 5, r if r > 2) { 3 } else { 0 };
    let h = match -(v as i64) {
        -3 => 33,
        -49..=-40 => 44,
        _ => 0,
    };
    let kv: u32 = classify(v);
    let k = kv as i64;
    // Names a pattern binds are bound at once: `(q, p)` swaps.
    let mn = match (v, 25u32) {
        (p, q) if p <= q => p,
        (q, p) => p,
    };
    out[i] = a * 100000 + b * 1000 + c * 100 + d + e + g + h * 10 + k * 7 + mn as i64 * 100_000_000;
}

fn classify_ref(v: u32) -> u32 {
    match v % 6 {
        0 => 10,
        1 | 2 => 20,
        k => k * 3,
    }
}

fn match_forms_ref(v: u32, f: bool) -> i64 {
    let a: i64 = match v {
        0 => 100,
        1..=3 => 200,
        4..=9 => 300 + v as i64,
        LIMIT => 1717,
        x if x % 7 == 0 => 400 + x as i64,
        20..30 => 500,
        big @ 40.. => big as i64 * 2,
        _ => -1,
    };
    let b = match (v % 3, f) {
        (0, true) => 1,
        (0, false) => 2,
        (_, true) if v > 25 => 3,
        // Alternatives binding one name: one arm each, the guard after each.
        (r @ 1, _) | (r @ 2, false) if v > 4 => 20 + r as i64,
        (r, _) => 10 + r as i64,
    };
    let c = if f { 5 } else { 6 };
    let d = match v % 4 {
        0 => 1,
        1 => -1,
        _ => 0,
    };
    let e = if matches!(v, 10..=19 | 33) { 7 } else { 0 };
    let g = if matches!(v % 5, r if r > 2) { 3 } else { 0 };
    let h = match -(v as i64) {
        -3 => 33,
        -49..=-40 => 44,
        _ => 0,
    };
    let k = classify_ref(v) as i64;
    let mn = v.min(25);
    a * 100000 + b * 1000 + c * 100 + d + e + g + h * 10 + k * 7 + mn as i64 * 100_000_000
}

pub fn case_match_forms(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 600;
    let m: Vec<u32> = (0..n).map(|_| r.random_range(0..1000)).collect();
    let flags: Vec<u32> = (0..n).map(|_| r.random_range(0..2)).collect();
    let (dm, df) = (dev.to_device(&m)?, dev.to_device(&flags)?);
    let mut d = poisoned(dev, n, i64::MIN)?;
    launch!(match_forms[blocks(n, 64), 64](&dm, &df, &mut d))?;
    let want: Vec<i64> = m
        .iter()
        .zip(&flags)
        .map(|(&v, &f)| match_forms_ref(v % 50, f % 2 == 1))
        .collect();
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
