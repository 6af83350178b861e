//! `Option` in kernels and device functions: `Some`/`None`, `checked_*`, `match` with
//! `Some(x)` patterns and guards, `if let`, `while let`, `let .. else`, `unwrap_or`, `map`,
//! `and_then`, `is_some`, `unwrap` (a panic on `None`), a device function's `Option`
//! result, iterator `min`/`max`. Each against the same Rust on the host.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;
use super::Outputs;

/// The first negative element at or after `from`.
#[gpu_device]
pub fn first_negative(a: &[i32], from: usize) -> Option<usize> {
    let mut k = from;
    while k < a.len() {
        if a[k] < 0 {
            return Some(k);
        }
        k += 1;
    }
    None
}

/// Half of an even number.
#[gpu_device]
pub fn halve_even(x: i32) -> Option<i32> {
    if x % 2 == 0 {
        Option::Some(x / 2)
    } else {
        Option::None
    }
}

/// The eight results of `options` for one element, as the host computes them (in the
/// kernel's forms, which clippy would shorten).
#[allow(
    clippy::manual_unwrap_or,
    clippy::manual_unwrap_or_default,
    clippy::let_and_return
)]
pub fn option_results(a: &[i32], b: &[i32], i: usize) -> [i32; 8] {
    let (ai, bi) = (a[i], b[i]);
    let sum = {
        let s = ai.checked_add(bi);
        let s = s.unwrap_or(-1);
        s
    };
    let r0 = sum % 1000
        + i32::from(ai.checked_sub(bi).is_none())
        + (ai.checked_add(bi).unwrap_or(-1) - sum);
    let r1 = match a[i].checked_mul(b[i]) {
        Some(p) => p % 1000,
        None => -2,
    };
    let r2 = if let Some(q) = a[i].checked_div(b[i]) {
        q
    } else {
        -3
    };
    let found: Option<usize> = first_negative(a, i);
    let r3 = match found {
        Some(k) if k == i => 0,
        Some(k) => (k - i) as i32,
        None => -4,
    };
    let h: Option<i32> = halve_even(a[i]);
    let plus: Option<i32> = h.map(|v| v + 1);
    let r4 = plus.unwrap_or(0) + i32::from(h.is_some()) * 10 + i32::from(h.is_none()) * 20;
    let q = h.and_then(|v| v.checked_sub(5));
    let r5 = q.unwrap_or(7);
    let mut x = Some(b[i]);
    let mut steps = 0;
    while let Some(v) = x {
        steps += 1;
        x = if v != 0 && v % 2 == 0 {
            Some(v / 2)
        } else {
            None
        };
    }
    // A search loop breaking with an `Option`.
    let mut k = i;
    let found2 = loop {
        if k >= b.len() || k > i + 4 {
            break None;
        }
        if b[k] > 0 {
            break Some(k);
        }
        k += 1;
    };
    let r6 = steps
        + match found2 {
            Some(k) => (k - i) as i32 * 100,
            None => -100,
        };
    let (Some(r7), Some(_)) = (b[i].checked_rem(7), a[i].checked_add(1)) else {
        return [r0, r1, r2, r3, r4, r5, r6, -5];
    };
    [r0, r1, r2, r3, r4, r5, r6, r7]
}

#[gpu_kernel]
pub fn options(a: &[i32], b: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() && 8 * i + 7 < out.len() {
        let (ai, bi) = (a[i], b[i]);
        // A block whose last `let` of `s` is a number (an earlier one, shadowed, an Option),
        // and the same sum as an operand.
        let sum = {
            let s = ai.checked_add(bi);
            let s = s.unwrap_or(-1);
            s
        };
        out[8 * i] = sum % 1000
            + i32::from(ai.checked_sub(bi).is_none())
            + (ai.checked_add(bi).unwrap_or(-1) - sum);
        out[8 * i + 1] = match a[i].checked_mul(b[i]) {
            Some(p) => p % 1000,
            None => -2,
        };
        out[8 * i + 2] = if let Some(q) = a[i].checked_div(b[i]) {
            q
        } else {
            -3
        };
        let found: Option<usize> = first_negative(a, i);
        out[8 * i + 3] = match found {
            Some(k) if k == i => 0,
            Option::Some(k) => (k - i) as i32,
            Option::None => -4,
        };
        let h: Option<i32> = halve_even(a[i]);
        let plus = h.map(|v| v + 1);
        let r4 = plus.unwrap_or(0);
        out[8 * i + 4] = r4 + i32::from(h.is_some()) * 10 + i32::from(h.is_none()) * 20;
        let q = h.and_then(|v| v.checked_sub(5));
        out[8 * i + 5] = q.unwrap_or(7);
        let mut x = Some(b[i]);
        let mut steps = 0;
        while let Some(v) = x {
            steps += 1;
            x = if v != 0 && v % 2 == 0 {
                Some(v / 2)
            } else {
                None
            };
        }
        let mut k = i;
        let found2 = loop {
            if k >= b.len() || k > i + 4 {
                break None;
            }
            if b[k] > 0 {
                break Some(k);
            }
            k += 1;
        };
        let far = match found2 {
            Some(k) => (k - i) as i32 * 100,
            None => -100,
        };
        out[8 * i + 6] = steps + far;
        let (Some(r), Some(_)) = (b[i].checked_rem(7), a[i].checked_add(1)) else {
            out[8 * i + 7] = -5;
            return;
        };
        out[8 * i + 7] = r;
    }
}

pub fn case_options(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(300..900);
    let pick = |r: &mut rand::rngs::StdRng| match r.random_range(0..4) {
        0 => [0, -1, 1, i32::MIN, i32::MAX, 2, -2][r.random_range(0..7)],
        1 => r.random_range(-100..100),
        _ => r.random(),
    };
    let a: Vec<i32> = (0..len).map(|_| pick(&mut r)).collect();
    let b: Vec<i32> = (0..len).map(|_| pick(&mut r)).collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dout = poisoned(dev, 8 * len, 0x5A5A_i32)?;
    launch!(options[blocks(len, 64), 64](&da, &db, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let want = option_results(&a, &b, i);
        if got[8 * i..8 * i + 8] != want {
            return Err(format!(
                "options at {i}: a = {}, b = {}: got {:?}, want {want:?}",
                a[i],
                b[i],
                &got[8 * i..8 * i + 8]
            )
            .into());
        }
    }
    Ok(vec![(
        "options",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}

/// Extremes of a row through `Option`, generic checked arithmetic, and `unwrap`/`expect`
/// on a value chosen by `fail` (1: `unwrap` of `None`, 2: `expect` of `None`).
#[gpu_kernel]
pub fn option_extremes<T: Int>(
    rows: &DeviceArray2<u32>,
    x: &[T],
    fail: u32,
    out: &mut [u64],
    sums: &mut [T],
) {
    let r = grid_1d();
    if r < rows.rows() && r < x.len() && 2 * r + 1 < out.len() && r < sums.len() {
        let mut row = [0u32; 8];
        for c in 0..8 {
            row[c] = if c < rows.cols() { rows[(r, c)] } else { 0 };
        }
        let hi = row.iter().copied().max().unwrap_or(0);
        let lo = match row.iter().copied().skip(1).min() {
            Some(m) => m,
            None => 7,
        };
        out[2 * r] = u64::from(hi) << 32 | u64::from(lo);
        let v = x[r];
        let doubled = v.checked_add(v);
        let Some(d) = doubled else {
            sums[r] = T::zero();
            out[2 * r + 1] = 99;
            return;
        };
        sums[r] = d;
        let tripled: Option<T> = d.checked_add(v);
        out[2 * r + 1] = u64::from(tripled.is_some());
        if fail == 1 && r == 3 {
            let none: Option<u32> = None;
            let v = none.unwrap();
            out[2 * r] = u64::from(v);
        }
        if fail == 2 && r == 5 {
            let h: Option<i32> = halve_even(1);
            let half = h.expect("an odd number has no half {here}");
            out[2 * r] = half as u64;
        }
    }
}

fn check_extremes<T: Int + gpu_runtime::Dtype + std::fmt::Debug>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
) -> CaseResult<()>
where
    rand::distr::StandardUniform: rand::distr::Distribution<T>,
{
    let rows = r.random_range(40..200);
    let cols = r.random_range(1..9);
    let m: Vec<u32> = (0..rows * cols).map(|_| r.random_range(0..50)).collect();
    let x: Vec<T> = (0..rows).map(|_| r.random()).collect();
    let dm = dev.to_device_2d(&m, (rows, cols))?;
    let dx = dev.to_device(&x)?;
    let mut dout = poisoned(dev, 2 * rows, 0xDEAD_u64)?;
    let mut dsums = poisoned(dev, rows, T::from_i32(0x5A))?;
    launch!(option_extremes[blocks(rows, 64), 64](&dm, &dx, 0, &mut dout, &mut dsums))?;
    let (got, sums) = (dout.to_host()?, dsums.to_host()?);
    for k in 0..rows {
        let row: Vec<u32> = (0..8)
            .map(|c| if c < cols { m[k * cols + c] } else { 0 })
            .collect();
        let hi = row.iter().max().copied().unwrap_or(0);
        let lo = row.iter().skip(1).min().copied().unwrap_or(7);
        let want0 = u64::from(hi) << 32 | u64::from(lo);
        let (want1, want_sum) = match x[k].checked_add(x[k]) {
            Some(d) => (u64::from(d.checked_add(x[k]).is_some()), d),
            None => (99, T::zero()),
        };
        if got[2 * k] != want0 || got[2 * k + 1] != want1 || sums[k] != want_sum {
            return Err(format!(
                "{name} extremes at {k}: row {row:?}, x = {:?}: got {:#x} {} {:?}, want {want0:#x} {want1} {want_sum:?}",
                x[k],
                got[2 * k],
                got[2 * k + 1],
                sums[k]
            )
            .into());
        }
    }
    out.push((name, got.iter().map(|&v| v as f64).collect()));
    Ok(())
}

pub fn case_option_extremes(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    check_extremes::<i32>(dev, &mut r, &mut out, "i32")?;
    check_extremes::<u8>(dev, &mut r, &mut out, "u8")?;
    check_extremes::<i64>(dev, &mut r, &mut out, "i64")?;
    // `unwrap` and `expect` of `None`: Rust's panic, with its message and the call's line.
    let m: Vec<u32> = vec![1; 64];
    let dm = dev.to_device_2d(&m, (8, 8))?;
    let dx = dev.to_device(&[1i32; 8])?;
    let mut dout = poisoned(dev, 16, 0u64)?;
    let mut dsums = poisoned(dev, 8, 0i32)?;
    for (fail, message) in [
        (1, "called `Option::unwrap()` on a `None` value"),
        (2, "an odd number has no half {here}"),
    ] {
        let err = launch!(option_extremes[1, 8](&dm, &dx, fail, &mut dout, &mut dsums))
            .and_then(|()| dev.synchronize());
        let text = match err {
            Err(e @ (GpuError::Panic { .. } | GpuError::SimulatorPanic { .. })) => e.to_string(),
            other => return Err(format!("fail = {fail}: got {other:?}").into()),
        };
        if !text.contains(message) || !text.contains("options.rs") {
            return Err(format!("fail = {fail}: the message is {text}").into());
        }
    }
    Ok(out)
}

/// `o`'s value plus `k`, or `d` where it is `None`: an `Option` parameter read by `match`.
#[gpu_device]
pub fn or_bumped(o: Option<i32>, d: i32, k: i32) -> i32 {
    match o {
        Some(v) => v + k,
        None => d,
    }
}

/// The value squared, or `zero`: a generic `Option` parameter read by `if let`.
#[gpu_device]
pub fn squared_or<T: Float>(o: Option<T>, zero: T) -> T {
    if let Some(v) = o {
        v * v
    } else {
        zero
    }
}

/// A parameter named as the C names the pair of another (`o_opt`).
#[gpu_device]
pub fn pick_or(o: Option<i32>, o_opt: i32) -> i32 {
    o.unwrap_or(o_opt)
}

/// A point in capitals: an `Option` of a `#[gpu_struct]`.
#[gpu_struct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct XY {
    pub x: f32,
    pub y: f32,
}

/// The point's sum, or `d`.
#[gpu_device]
pub fn xy_sum_or(o: Option<XY>, d: f32) -> f32 {
    match o {
        Some(p) => p.x + p.y,
        None => d,
    }
}

/// `v + 1`: a device function's value, whose type the caller does not see.
#[gpu_device]
pub fn plus_one(v: i32) -> i32 {
    v + 1
}

/// An `Option` parameter passed on to another device function.
#[gpu_device]
pub fn relay(o: Option<i32>) -> i32 {
    or_bumped(o, -1i32, 100i32)
}

/// `Option` arguments of every form: a local (made by `if`, `checked_mul`), `Some(x)`,
/// `None`, passed on, and `None` for a generic parameter whose `T` the other argument
/// gives.
#[gpu_kernel(fmad = false)]
pub fn option_params(x: &[i32], y: &[f32], out: &mut [i32], outf: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() && i < y.len() && i < outf.len() {
        let o: Option<i32> = if x[i] % 3 == 0 { None } else { Some(x[i]) };
        let a: i32 = or_bumped(o, 7i32, 1i32);
        let b: i32 = or_bumped(Some(x[i]), 0i32, 2i32);
        let c: i32 = or_bumped(None, 5i32, 3i32);
        let m = x[i].checked_mul(1000);
        let d: i32 = or_bumped(m, -9i32, 0i32);
        let e: i32 = relay(o);
        let h: i32 = pick_or(o, x[i] / 2);
        let j: i32 = or_bumped(Some(plus_one(x[i])), 0i32, 0i32);
        out[i] = a ^ b ^ c ^ d ^ e ^ h ^ j;
        let p: Option<f32> = if y[i] > 0.0 { Some(y[i]) } else { None };
        let f: f32 = squared_or(p, 0.0f32);
        let g: f32 = squared_or(None, y[i]);
        let q: Option<XY> = if x[i] % 2 == 0 {
            Some(XY { x: y[i], y: 1.0 })
        } else {
            None
        };
        let s: f32 = xy_sum_or(q, -2.0f32);
        outf[i] = f + g + s;
    }
}

pub fn case_option_params(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let len = r.random_range(1..3000);
    let x: Vec<i32> = (0..len)
        .map(|_| r.random_range(-4_000_000..4_000_000))
        .collect();
    let y = uniform_f32(&mut r, len, -10.0, 10.0);
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut got = poisoned(dev, len, i32::MIN)?;
    let mut gotf = poisoned(dev, len, f32::NAN)?;
    launch!(option_params[blocks(len, 128), 128](&dx, &dy, &mut got, &mut gotf))?;
    let want: Vec<i32> = x
        .iter()
        .map(|&v| {
            let o = if v % 3 == 0 { None } else { Some(v) };
            let a = o.map_or(7, |v| v + 1);
            let d = v.checked_mul(1000).unwrap_or(-9);
            let e = o.map_or(-1, |v| v + 100);
            let h = o.unwrap_or(v / 2);
            a ^ (v + 2) ^ 5 ^ d ^ e ^ h ^ (v + 1)
        })
        .collect();
    let wantf: Vec<f32> = y
        .iter()
        .zip(&x)
        .map(|(&v, &xi)| {
            let s = if xi % 2 == 0 { v + 1.0 } else { -2.0 };
            (if v > 0.0 { v * v } else { 0.0 }) + v + s
        })
        .collect();
    check(&mut out, "out", &got.to_host()?, &want, 0.0)?;
    check(&mut out, "outf", &gotf.to_host()?, &wantf, 0.0)?;
    Ok(out)
}
