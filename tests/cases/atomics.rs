//! Atomics of every kind and dtype.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[gpu_kernel]
pub fn atomics_all(
    x: &[i32],
    u: &[u32],
    f: &[f64],
    ints: &mut [i32],
    uints: &mut [u32],
    floats: &mut [f64],
    big: &mut [i64],
) {
    let i = grid_1d();
    if i < x.len() {
        atomic_add(ints, 0, x[i]);
        atomic_sub(ints, 1, x[i]);
        atomic_min(ints, 2, x[i]);
        atomic_max(ints, 3, x[i]);
        atomic_and(uints, 0, u[i]);
        atomic_or(uints, 1, u[i]);
        atomic_xor(uints, 2, u[i]);
        atomic_inc(uints, 3, 1000);
        atomic_dec(uints, 4, 1_000_000);
        atomic_add(floats, 0, f[i]);
        atomic_add(big, 0, x[i] as i64 * 1_000_000);
        // A counter built from compare-and-swap.
        let mut old = uints[5];
        loop {
            let seen = atomic_cas(uints, 5, old, old + 2);
            if seen == old {
                break;
            }
            old = seen;
        }
        // Everyone swaps in its index; the final value is some thread's.
        atomic_exch(ints, 4, i as i32);
    }
}

pub fn case_atomics(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(500..3_000);
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
    let u: Vec<u32> = (0..n).map(|_| r.random()).collect();
    // Multiples of 1/64 sum exactly in any order.
    let f: Vec<f64> = (0..n)
        .map(|_| r.random_range(-640..640) as f64 / 64.0)
        .collect();
    let (dx, du, df) = (dev.to_device(&x)?, dev.to_device(&u)?, dev.to_device(&f)?);
    let mut ints = dev.to_device(&[0, 0, i32::MAX, i32::MIN, -1])?;
    let mut uints = dev.to_device(&[u32::MAX, 0, 0, 0, 5, 0])?;
    let mut floats = dev.to_device(&[0.5f64])?;
    let mut big = dev.to_device(&[7i64])?;
    launch!(atomics_all[blocks(n, 128), 128](&dx, &du, &df, &mut ints, &mut uints, &mut floats, &mut big))?;
    let gi = ints.to_host()?;
    let sum: i32 = x.iter().sum();
    let want_i = [
        sum,
        -sum,
        *x.iter().min().unwrap(),
        *x.iter().max().unwrap(),
    ];
    check(&mut out, "ints", &gi[..4], &want_i, 0.0)?;
    if !(0..n as i32).contains(&gi[4]) {
        return Err(format!("atomic_exch left {}, not a thread index", gi[4]).into());
    }
    let gu = uints.to_host()?;
    let and = u.iter().fold(u32::MAX, |a, v| a & v);
    let or = u.iter().fold(0, |a, v| a | v);
    let xor = u.iter().fold(0, |a, v| a ^ v);
    // inc wraps to 0 after reaching 1000; dec from 5 wraps to the limit after 0.
    let inc = (0..n).fold(0u32, |o, _| if o >= 1000 { 0 } else { o + 1 });
    let dec = (0..n).fold(5u32, |o, _| {
        if o == 0 || o > 1_000_000 {
            1_000_000
        } else {
            o - 1
        }
    });
    let want_u = [and, or, xor, inc, dec, 2 * n as u32];
    check(&mut out, "uints", &gu, &want_u, 0.0)?;
    let want_f = 0.5 + f.iter().sum::<f64>();
    check(&mut out, "f64 add", &floats.to_host()?, &[want_f], 0.0)?;
    let want_big = 7 + x.iter().map(|&v| v as i64 * 1_000_000).sum::<i64>();
    let gb = big.to_host()?;
    if gb[0] != want_big {
        return Err(format!("i64 add: {} != {want_big}", gb[0]).into());
    }
    out.push(("i64", vec![gb[0] as f64]));
    Ok(out)
}
