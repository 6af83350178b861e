//! Element-wise kernels over slices and scalars: vec_add, saxpy, `forall`, integer
//! arithmetic, generic integer kernels, logic, casts and literals.

use gpu_runtime::prelude::*;

use super::support::*;
use gpu_runtime::Dtype;
use rand::rngs::StdRng;
use rand::Rng;

#[gpu_kernel]
pub fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] + b[i];
    }
}

pub fn case_vec_add(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 10_007;
    let (a, b) = (
        uniform_f32(&mut r, n, -1e3, 1e3),
        uniform_f32(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = poisoned(dev, n, f32::NAN)?;
    launch!(vec_add[blocks(n, 256), 256](&da, &db, &mut dc))?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "f32", &dc.to_host()?, &want, 0.0)?;

    let (a, b) = (
        uniform_f64(&mut r, n, -1e3, 1e3),
        uniform_f64(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = poisoned(dev, n, f64::NAN)?;
    launch!(vec_add[blocks(n, 128), 128](&da, &db, &mut dc))?;
    let want: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "f64", &dc.to_host()?, &want, 0.0)?;
    Ok(out)
}

pub fn case_forall(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1..200_000);
    let (a, b) = (
        uniform_f32(&mut r, n, -1e3, 1e3),
        uniform_f32(&mut r, n, -1e3, 1e3),
    );
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = poisoned(dev, n, f32::NAN)?;
    launch!(vec_add.forall(n)(&da, &db, &mut dc))?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "forall", &dc.to_host()?, &want, 0.0)?;
    // Empty arrays exist, copy, and a forall over them launches nothing.
    let e = dev.to_device::<f32>(&[])?;
    let mut z = dev.zeros::<f32>(0)?;
    launch!(vec_add.forall(0)(&e, &e, &mut z))?;
    if !z.to_host()?.is_empty() || !e.is_empty() {
        return Err("empty arrays are not empty".into());
    }
    Ok(out)
}

#[gpu_kernel]
pub fn saxpy<T: Float>(alpha: T, x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = alpha * x[i] + y[i];
    }
}

pub fn case_saxpy(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 5_000;
    let (x, y) = (
        uniform_f32(&mut r, n, -10.0, 10.0),
        uniform_f32(&mut r, n, -10.0, 10.0),
    );
    let alpha: f32 = r.random_range(-3.0..3.0);
    let dx = dev.to_device(&x)?;
    let mut dy = dev.to_device(&y)?;
    launch!(saxpy[blocks(n, 256), 256](alpha, &dx, &mut dy))?;
    // NVRTC contracts `a*x+y` into one FMA by default (as nvcc does); the simulator does
    // not. Each element must equal one of the two exactly.
    let fused: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    let plain: Vec<f32> = x.iter().zip(&y).map(|(x, y)| alpha * x + y).collect();
    check_either(&mut out, "f32", &dy.to_host()?, &fused, &plain)?;

    let (x, y) = (
        uniform_f64(&mut r, n, -10.0, 10.0),
        uniform_f64(&mut r, n, -10.0, 10.0),
    );
    let alpha: f64 = r.random_range(-3.0..3.0);
    let dx = dev.to_device(&x)?;
    let mut dy = dev.to_device(&y)?;
    launch!(saxpy[blocks(n, 64), 64](alpha, &dx, &mut dy))?;
    let fused: Vec<f64> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| alpha.mul_add(*x, *y))
        .collect();
    let plain: Vec<f64> = x.iter().zip(&y).map(|(x, y)| alpha * x + y).collect();
    check_either(&mut out, "f64", &dy.to_host()?, &fused, &plain)?;
    Ok(out)
}

#[gpu_kernel]
pub fn int_ops_i32(a: &[i32], b: &[i32], s: &[u32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = x << s[i];
        out[o + 9] = (x >> s[i]) + !y - (-x).abs();
    }
}

#[gpu_kernel]
pub fn int_ops_i64(a: &[i64], b: &[i64], s: &[u32], out: &mut [i64]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = x << s[i];
        out[o + 9] = (x >> s[i]) + !y - x.abs().min(y).max(-5);
    }
}

#[gpu_kernel]
pub fn int_ops_u32(a: &[u32], b: &[u32], s: &[u32], out: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = x << s[i];
        out[o + 9] = (x >> s[i]) + (!y >> 4) + x.min(y) - x.max(y) / 2;
    }
}

#[gpu_kernel]
pub fn int_ops_u64(a: &[u64], b: &[u64], s: &[u32], out: &mut [u64]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        let o = i * 10;
        out[o] = x + y;
        out[o + 1] = x - y;
        out[o + 2] = x * y;
        out[o + 3] = x / y;
        out[o + 4] = x % y;
        out[o + 5] = x & y;
        out[o + 6] = x | y;
        out[o + 7] = x ^ y;
        out[o + 8] = (x << s[i]) & 0xFFFF_FFFF_FFFF;
        out[o + 9] = (x >> s[i]) + (!y >> 20);
    }
}

pub fn case_int_ops(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 1_000;
    let s: Vec<u32> = (0..n).map(|_| r.random_range(0..8)).collect();
    let ds = dev.to_device(&s)?;
    let g = blocks(n, 128);

    // Operands small enough that + - * never overflow; divisors never zero.
    let a: Vec<i32> = (0..n).map(|_| r.random_range(-30_000..30_000)).collect();
    let b: Vec<i32> = (0..n)
        .map(|_| signed_nonzero(&mut r, 30_000) as i32)
        .collect();
    check_int_ops(
        dev,
        &mut out,
        "i32",
        (&a, &b, &s),
        i32::MIN,
        |a, b, d| launch!(int_ops_i32[g, 128](a, b, &ds, d)),
        |x, y, s| [x << s, (x >> s) + !y - (-x).abs()],
        |v| v as f64,
    )?;

    let a: Vec<i64> = (0..n)
        .map(|_| r.random_range(-1_000_000_000..1_000_000_000))
        .collect();
    let b: Vec<i64> = (0..n)
        .map(|_| signed_nonzero(&mut r, 1_000_000_000))
        .collect();
    check_int_ops(
        dev,
        &mut out,
        "i64",
        (&a, &b, &s),
        i64::MIN,
        |a, b, d| launch!(int_ops_i64[g, 128](a, b, &ds, d)),
        |x, y, s| [x << s, (x >> s) + !y - x.abs().min(y).max(-5)],
        |v| v as f64,
    )?;

    let a: Vec<u32> = (0..n).map(|_| r.random_range(40_000..60_000)).collect();
    let b: Vec<u32> = (0..n).map(|_| r.random_range(1..40_000)).collect();
    check_int_ops(
        dev,
        &mut out,
        "u32",
        (&a, &b, &s),
        0xDEAD_BEEF,
        |a, b, d| launch!(int_ops_u32[g, 128](a, b, &ds, d)),
        |x, y, s| [x << s, (x >> s) + (!y >> 4) + x.min(y) - x.max(y) / 2],
        |v| v as f64,
    )?;

    let a: Vec<u64> = (0..n)
        .map(|_| r.random_range(1u64 << 40..1u64 << 41))
        .collect();
    let b: Vec<u64> = (0..n).map(|_| r.random_range(1..1u64 << 20)).collect();
    check_int_ops(
        dev,
        &mut out,
        "u64",
        (&a, &b, &s),
        u64::MAX,
        |a, b, d| launch!(int_ops_u64[g, 128](a, b, &ds, d)),
        |x, y, s| [(x << s) & 0xFFFF_FFFF_FFFF, (x >> s) + (!y >> 20)],
        // Exact in f64 for the cross-backend comparison.
        |v| (v % (1 << 52)) as f64,
    )?;
    Ok(out)
}

/// A value in `1..hi` or `-hi+1..=-1`, with either sign equally likely.
pub fn signed_nonzero(r: &mut StdRng, hi: i64) -> i64 {
    let v = r.random_range(1..hi);
    if r.random() {
        v
    } else {
        -v
    }
}

/// Runs one `int_ops` kernel on `a`, `b`, `s` into an output poisoned with `poison` (ten
/// results per element) and compares it exactly with the reference: `+ - * / % & | ^`,
/// then the two results that differ per dtype (`shifts_and_mixed`).
#[allow(clippy::too_many_arguments)]
pub fn check_int_ops<T>(
    dev: &Device,
    out: &mut Outputs,
    name: &'static str,
    (a, b, s): (&[T], &[T], &[u32]),
    poison: T,
    launch: impl FnOnce(&DeviceArray<T>, &DeviceArray<T>, &mut DeviceArray<T>) -> Result<(), GpuError>,
    shifts_and_mixed: impl Fn(T, T, u32) -> [T; 2],
    as_f64: impl Fn(T) -> f64,
) -> CaseResult<()>
where
    T: Dtype
        + std::ops::Add<Output = T>
        + std::ops::Sub<Output = T>
        + std::ops::Mul<Output = T>
        + std::ops::Div<Output = T>
        + std::ops::Rem<Output = T>
        + std::ops::BitAnd<Output = T>
        + std::ops::BitOr<Output = T>
        + std::ops::BitXor<Output = T>,
{
    let (da, db) = (dev.to_device(a)?, dev.to_device(b)?);
    let mut d = poisoned(dev, a.len() * 10, poison)?;
    launch(&da, &db, &mut d)?;
    let want: Vec<T> = (0..a.len())
        .flat_map(|i| {
            let (x, y) = (a[i], b[i]);
            let [p, q] = shifts_and_mixed(x, y, s[i]);
            [x + y, x - y, x * y, x / y, x % y, x & y, x | y, x ^ y, p, q]
        })
        .collect();
    let got = d.to_host()?;
    if let Some(i) = got.iter().zip(&want).position(|(g, w)| g != w) {
        return Err(format!("{name}[{i}]: got {:?}, want {:?}", got[i], want[i]).into());
    }
    out.push((name, got.into_iter().map(as_f64).collect()));
    Ok(())
}

#[gpu_kernel]
pub fn generic_int<T: Int>(a: &[T], b: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        let x = a[i];
        let y = b[i];
        out[i] = ((x & y) | (x ^ y)) + x.min(y) * T::from_i32(3) - T::one() + (x >> 1u32);
    }
}

pub fn case_generic_int(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    let a: Vec<i32> = (0..n).map(|_| r.random_range(-10_000..10_000)).collect();
    let b: Vec<i32> = (0..n).map(|_| r.random_range(-10_000..10_000)).collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut d = poisoned(dev, n, i32::MIN)?;
    launch!(generic_int[blocks(n, 256), 256](&da, &db, &mut d))?;
    let want: Vec<i32> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| ((x & y) | (x ^ y)) + x.min(y) * 3 - 1 + (x >> 1))
        .collect();
    check(&mut out, "i32", &d.to_host()?, &want, 0.0)?;

    let a: Vec<u64> = (0..n).map(|_| r.random_range(1..1u64 << 40)).collect();
    let b: Vec<u64> = (0..n).map(|_| r.random_range(1..1u64 << 40)).collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut d = poisoned(dev, n, 0u64)?;
    launch!(generic_int[blocks(n, 256), 256](&da, &db, &mut d))?;
    let want: Vec<u64> = a
        .iter()
        .zip(&b)
        .map(|(&x, &y)| ((x & y) | (x ^ y)) + x.min(y) * 3 - 1 + (x >> 1))
        .collect();
    let got = d.to_host()?;
    if got != want {
        return Err("u64 generic_int mismatch".into());
    }
    out.push(("u64", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
pub fn logic(
    a: &[f32],
    b: &[f32],
    flags: &[bool],
    invert: bool,
    out: &mut [i32],
    bits: &mut [bool],
) {
    let i = grid_1d();
    if i >= a.len() {
        return;
    }
    let x = a[i];
    let y = b[i];
    let mut code = 0i32;
    if x < y {
        code |= 1;
    }
    if x <= y {
        code |= 2;
    }
    if x > y {
        code |= 4;
    }
    if x >= y {
        code |= 8;
    }
    if x == y {
        code |= 16;
    }
    if x != y {
        code |= 32;
    }
    if (x > 0.0 && y > 0.0) || !(x < -0.5) {
        code |= 64;
    }
    if flags[i] ^ invert {
        code |= 128;
    }
    out[i] = code;
    bits[i] = (flags[i] && x > y) || (invert & !flags[i]);
}

pub fn case_logic(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 3_000;
    let a: Vec<f32> = (0..n)
        .map(|_| (r.random_range(-4..4) as f32) * 0.5)
        .collect();
    let b: Vec<f32> = (0..n)
        .map(|_| (r.random_range(-4..4) as f32) * 0.5)
        .collect();
    let flags: Vec<bool> = (0..n).map(|_| r.random()).collect();
    let invert: bool = r.random();
    let (da, db, df) = (
        dev.to_device(&a)?,
        dev.to_device(&b)?,
        dev.to_device(&flags)?,
    );
    let mut dout = poisoned(dev, n, -1i32)?;
    let mut dbits = dev.to_device(&flags.iter().map(|f| !f).collect::<Vec<_>>())?;
    launch!(logic[blocks(n, 256), 256](&da, &db, &df, invert, &mut dout, &mut dbits))?;
    let mut want = Vec::new();
    let mut want_bits = Vec::new();
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let mut code = 0;
        if x < y {
            code |= 1;
        }
        if x <= y {
            code |= 2;
        }
        if x > y {
            code |= 4;
        }
        if x >= y {
            code |= 8;
        }
        if x == y {
            code |= 16;
        }
        if x != y {
            code |= 32;
        }
        if (x > 0.0 && y > 0.0) || !(x < -0.5) {
            code |= 64;
        }
        if flags[i] ^ invert {
            code |= 128;
        }
        want.push(code);
        want_bits.push((flags[i] && x > y) || (invert & !flags[i]));
    }
    check(&mut out, "codes", &dout.to_host()?, &want, 0.0)?;
    let got_bits = dbits.to_host()?;
    if got_bits != want_bits {
        return Err("bool outputs differ".into());
    }
    out.push(("bits", got_bits.iter().map(|&b| b as i32 as f64).collect()));
    Ok(out)
}

#[gpu_kernel]
pub fn casts(
    f: &[f32],
    d: &[f64],
    i: &[i32],
    u: &[u64],
    out_f: &mut [f32],
    out_d: &mut [f64],
    out_i: &mut [i64],
) {
    let k = grid_1d();
    if k < f.len() {
        let o = k * 4;
        out_i[o] = f[k] as i32 as i64;
        out_i[o + 1] = d[k] as u32 as i64;
        out_i[o + 2] = i[k] as u64 as i64;
        out_i[o + 3] = (u[k] as usize as u32) as i64 + (f[k] > 0.0) as i64;
        out_f[o] = i[k] as f32;
        out_f[o + 1] = d[k] as f32;
        out_f[o + 2] = u[k] as f32;
        out_f[o + 3] = (k as f32) * 0.25;
        out_d[o] = f[k] as f64;
        out_d[o + 1] = i[k] as f64;
        out_d[o + 2] = u[k] as f64;
        out_d[o + 3] = f[k].to_f64() * 0.1;
    }
}

pub fn case_casts(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 2_000;
    // Out-of-range float-to-int casts saturate in Rust and in PTX's cvt alike.
    let f: Vec<f32> = (0..n).map(|_| r.random_range(-3e9f32..3e9)).collect();
    let d: Vec<f64> = (0..n).map(|_| r.random_range(-1e10..1e10)).collect();
    let iv: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let u: Vec<u64> = (0..n).map(|_| r.random()).collect();
    let (df, dd, di, du) = (
        dev.to_device(&f)?,
        dev.to_device(&d)?,
        dev.to_device(&iv)?,
        dev.to_device(&u)?,
    );
    let mut of = poisoned(dev, n * 4, f32::NAN)?;
    let mut od = poisoned(dev, n * 4, f64::NAN)?;
    let mut oi = poisoned(dev, n * 4, i64::MIN + 7)?;
    launch!(casts[blocks(n, 256), 256](&df, &dd, &di, &du, &mut of, &mut od, &mut oi))?;
    let (mut wf, mut wd, mut wi) = (Vec::new(), Vec::new(), Vec::new());
    for k in 0..n {
        wi.extend([
            f[k] as i32 as i64,
            d[k] as u32 as i64,
            iv[k] as u64 as i64,
            (u[k] as usize as u32) as i64 + (f[k] > 0.0) as i64,
        ]);
        wf.extend([iv[k] as f32, d[k] as f32, u[k] as f32, (k as f32) * 0.25]);
        wd.extend([f[k] as f64, iv[k] as f64, u[k] as f64, (f[k] as f64) * 0.1]);
    }
    let gi = oi.to_host()?;
    if gi != wi {
        let p = gi.iter().zip(&wi).position(|(g, w)| g != w).unwrap_or(0);
        return Err(format!("integer casts: element {p}: got {}, want {}", gi[p], wi[p]).into());
    }
    out.push(("ints", gi.iter().map(|&v| v as f64).collect()));
    check(&mut out, "f32", &of.to_host()?, &wf, 0.0)?;
    check(&mut out, "f64", &od.to_host()?, &wd, 0.0)?;
    Ok(out)
}

#[gpu_kernel]
pub fn f32_literals(x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        // Each step rounds to f32 in Rust; a C `double` literal would round differently.
        let t = x[i] * 0.1 + 1.0 / 3.0;
        let u = t / 7.0 - 0.3;
        y[i] = u * u - 2.5e-3;
    }
}

pub fn case_f32_literals(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 20_000;
    let x = uniform_f32(&mut r, n, -100.0, 100.0);
    let dx = dev.to_device(&x)?;
    let mut dy = poisoned(dev, n, f32::NAN)?;
    launch!(f32_literals[blocks(n, 256), 256](&dx, &mut dy))?;
    // The GPU may contract a*b+c into one FMA (NVRTC's default, as nvcc's); compute the
    // reference the same way so the check is exact and still catches double arithmetic.
    let want: Vec<f32> = x
        .iter()
        .map(|&v| {
            let t = v.mul_add(0.1, 1.0 / 3.0);
            let u = t / 7.0 - 0.3;
            u.mul_add(u, -2.5e-3)
        })
        .collect();
    let want_plain: Vec<f32> = x
        .iter()
        .map(|&v| {
            let t = v * 0.1 + 1.0 / 3.0;
            let u = t / 7.0 - 0.3;
            u * u - 2.5e-3
        })
        .collect();
    check_either(&mut out, "y", &dy.to_host()?, &want, &want_plain)?;
    Ok(out)
}
