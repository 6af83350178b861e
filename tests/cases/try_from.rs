//! `T::try_from(x)` between integer types, read as Rust reads its `Result`: `.ok()`,
//! `.unwrap_or(d)`, `.unwrap_or_default()`, `.is_ok()`, `.is_err()`, `match` and `if let`
//! on `Ok(v)` and `Err(_)`, `let .. else` in a device function, from signed and unsigned
//! sources; `unwrap` and `expect` of an `Err` panic with Rust's messages. Inputs sit at and
//! around every integer type's bounds.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// `x` as an `i8`, or -9.
#[gpu_device]
pub fn narrow_or(x: i64) -> i64 {
    let Ok(b) = i8::try_from(x) else {
        return -9;
    };
    b as i64
}

/// The nine results of `try_froms` for one value, as the host computes them.
pub fn try_from_results(x: i64) -> [i64; 9] {
    let r0 = u8::try_from(x).unwrap_or(7) as i64;
    let r1 = match i32::try_from(x) {
        Ok(v) => v as i64 * 2,
        Err(_) => -1,
    };
    let r2 = if let Ok(v) = u32::try_from(x) {
        v as i64
    } else {
        -2
    };
    let r3 = i8::try_from(x).is_ok() as i64 + 2 * (u16::try_from(x).is_err() as i64);
    let r4 = usize::try_from(x).unwrap_or_default() as i64;
    let r5 = u32::try_from(x as u64).unwrap_or(3) as i64;
    let r6 = narrow_or(x);
    let r7 = u64::try_from(x as i32).ok().unwrap_or(5) as i64;
    let r8 = i64::try_from(x as u64)
        .unwrap_or(-4)
        .wrapping_add(<i16>::try_from(x).unwrap_or(1) as i64);
    [r0, r1, r2, r3, r4, r5, r6, r7, r8]
}

#[gpu_kernel]
pub fn try_froms(xs: &[i64], out: &mut [i64]) {
    let i = grid_1d();
    if i < xs.len() && 9 * i + 8 < out.len() {
        let x = xs[i];
        out[9 * i] = u8::try_from(x).unwrap_or(7) as i64;
        out[9 * i + 1] = match i32::try_from(x) {
            Ok(v) => v as i64 * 2,
            Err(_) => -1,
        };
        out[9 * i + 2] = if let Ok(v) = u32::try_from(x) {
            v as i64
        } else {
            -2
        };
        out[9 * i + 3] = i8::try_from(x).is_ok() as i64 + 2 * (u16::try_from(x).is_err() as i64);
        out[9 * i + 4] = usize::try_from(x).unwrap_or_default() as i64;
        out[9 * i + 5] = u32::try_from(x as u64).unwrap_or(3) as i64;
        let n: i64 = narrow_or(x);
        out[9 * i + 6] = n;
        out[9 * i + 7] = u64::try_from(x as i32).ok().unwrap_or(5) as i64;
        out[9 * i + 8] = i64::try_from(x as u64)
            .unwrap_or(-4)
            .wrapping_add(<i16>::try_from(x).unwrap_or(1) as i64);
    }
}

/// `unwrap` (`how` 0) or `expect` of `u8::try_from(xs[i])`.
#[gpu_kernel]
pub fn try_from_unwrap(xs: &[i32], how: u32, out: &mut [u8]) {
    let i = grid_1d();
    if i < xs.len() && i < out.len() {
        out[i] = if how == 0 {
            u8::try_from(xs[i]).unwrap()
        } else {
            u8::try_from(xs[i]).expect("not a byte")
        };
    }
}

/// Values at and around every integer type's bounds, and random ones of every magnitude.
fn edge_values(r: &mut impl Rng, n: usize) -> Vec<i64> {
    let bounds: [i64; 12] = [
        0,
        i8::MIN as i64,
        i8::MAX as i64,
        u8::MAX as i64,
        i16::MIN as i64,
        i16::MAX as i64,
        u16::MAX as i64,
        i32::MIN as i64,
        i32::MAX as i64,
        u32::MAX as i64,
        i64::MIN,
        i64::MAX,
    ];
    (0..n)
        .map(|_| match r.random_range(0..3) {
            0 => bounds[r.random_range(0..bounds.len())].wrapping_add(r.random_range(-2..=2)),
            1 => r.random::<i64>() >> r.random_range(0..63),
            _ => r.random::<i64>(),
        })
        .collect()
}

pub fn case_try_from(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(200..700);
    let xs = edge_values(&mut r, len);
    let dx = dev.to_device(&xs)?;
    let mut dout = poisoned(dev, 9 * len, i64::MIN + 1)?;
    launch!(try_froms[blocks(len, 64), 64](&dx, &mut dout))?;
    let got = dout.to_host()?;
    for (i, row) in got.chunks_exact(9).enumerate() {
        let want = try_from_results(xs[i]);
        if row != want {
            return Err(format!(
                "try_froms at {i}: x = {}: got {row:?}, want {want:?}",
                xs[i]
            )
            .into());
        }
    }
    // `unwrap` and `expect` of an `Err`: Rust's panics, with their messages.
    let bytes: Vec<i32> = vec![3, 255, 256, 0];
    let db = dev.to_device(&bytes)?;
    let mut dbytes = poisoned(dev, 4, 0u8)?;
    for (how, message) in [
        (
            0,
            "called `Result::unwrap()` on an `Err` value: TryFromIntError(())",
        ),
        (1, "not a byte: TryFromIntError(())"),
    ] {
        let err =
            launch!(try_from_unwrap[1, 4](&db, how, &mut dbytes)).and_then(|()| dev.synchronize());
        let text = match err {
            Err(e @ (GpuError::Panic { .. } | GpuError::SimulatorPanic { .. })) => e.to_string(),
            other => return Err(format!("how = {how}: got {other:?}").into()),
        };
        if !text.contains(message) || !text.contains("try_from.rs") {
            return Err(format!("how = {how}: the message is {text}").into());
        }
    }
    Ok(vec![("try_froms", got.iter().map(|&v| v as f64).collect())])
}
