//! The semantics contract: what the GPU computes bit for bit as Rust does (casts of every
//! kind and value, 16-bit floats from f64, shifts and wrapping arithmetic without overflow
//! checks, `powi`, `+ - * /` and `sqrt` under `fmad = false`), and the integer operations
//! Rust defines as panics, reported as `GpuError::IntegerFault` on both backends.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// Float inputs with the values casts get wrong most easily.
fn float_inputs(r: &mut rand::rngs::StdRng, n: usize) -> Vec<f64> {
    let special = [
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        0.5,
        -0.5,
        -1.0,
        -1.5,
        2147483647.0,
        2147483648.0,
        -2147483649.0,
        4294967295.5,
        4294967296.0,
        9.223372036854776e18,
        1.8446744073709552e19,
        -9.3e18,
        1e300,
        -1e300,
        f64::MIN_POSITIVE,
    ];
    let mut v: Vec<f64> = special.to_vec();
    while v.len() < n {
        let e = r.random_range(-10..70);
        let m: f64 = r.random_range(-1.0..1.0);
        v.push(m * 2f64.powi(e));
    }
    v
}

/// Each 64-bit pattern as two exact f64 halves, so a comparison is bit for bit.
fn halves(v: impl IntoIterator<Item = u64>) -> Vec<f64> {
    v.into_iter()
        .flat_map(|b| [(b >> 32) as f64, (b & 0xffff_ffff) as f64])
        .collect()
}

/// Every float-to-integer cast of `f` (as f32) and `d` with `as`.
#[gpu_kernel]
pub fn casts_to_ints(
    f: &[f32],
    d: &[f64],
    oi32: &mut [i32],
    oi64: &mut [i64],
    ou32: &mut [u32],
    ou64: &mut [u64],
    ousize: &mut [usize],
    oisize: &mut [isize],
) {
    let k = grid_1d();
    if k < f.len() {
        let o = 2 * k;
        oi32[o] = f[k] as i32;
        oi32[o + 1] = d[k] as i32;
        oi64[o] = f[k] as i64;
        oi64[o + 1] = d[k] as i64;
        ou32[o] = f[k] as u32;
        ou32[o + 1] = d[k] as u32;
        ou64[o] = f[k] as u64;
        ou64[o + 1] = d[k] as u64;
        ousize[o] = f[k] as usize;
        ousize[o + 1] = d[k] as usize;
        oisize[o] = f[k] as isize;
        oisize[o + 1] = d[k] as isize;
    }
}

/// The same through `T::from_f64`, for a dtype parameter.
#[gpu_kernel]
pub fn from_f64_to<T: Int>(d: &[f64], out: &mut [T]) {
    let k = grid_1d();
    if k < d.len() {
        out[k] = T::from_f64(d[k]);
    }
}

pub fn case_casts_to_ints(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = 4_000;
    let d = float_inputs(&mut r, n);
    let f: Vec<f32> = d.iter().map(|&x| x as f32).collect();
    let (df, dd) = (dev.to_device(&f)?, dev.to_device(&d)?);
    let mut oi32 = poisoned(dev, 2 * n, 7i32)?;
    let mut oi64 = poisoned(dev, 2 * n, 7i64)?;
    let mut ou32 = poisoned(dev, 2 * n, 7u32)?;
    let mut ou64 = poisoned(dev, 2 * n, 7u64)?;
    let mut ousize = poisoned(dev, 2 * n, 7usize)?;
    let mut oisize = poisoned(dev, 2 * n, 7isize)?;
    launch!(casts_to_ints[blocks(n, 128), 128](
        &df, &dd, &mut oi32, &mut oi64, &mut ou32, &mut ou64, &mut ousize, &mut oisize
    ))?;
    let mut out = Outputs::new();
    macro_rules! compare {
        ($name:literal, $got:expr, $t:ty) => {{
            let got = $got.to_host()?;
            // And `T::from_f64` for the same type.
            let mut generic = poisoned(dev, n, 7 as $t)?;
            launch!(from_f64_to[blocks(n, 128), 128](&dd, &mut generic))?;
            let generic = generic.to_host()?;
            for k in 0..n {
                let want = d[k] as $t;
                let got = [got[2 * k], got[2 * k + 1], generic[k]];
                let want = [f[k] as $t, want, want];
                if got != want {
                    return Err(format!(
                        "{} of {:?} (as f32, as f64, T::from_f64): got {got:?}, want {want:?}",
                        $name, d[k]
                    )
                    .into());
                }
            }
            out.push(($name, halves(got.iter().chain(&generic).map(|&v| v as u64))));
        }};
    }
    compare!("as i32", oi32, i32);
    compare!("as i64", oi64, i64);
    compare!("as u32", ou32, u32);
    compare!("as u64", ou64, u64);
    compare!("as usize", ousize, usize);
    compare!("as isize", oisize, isize);
    Ok(out)
}

/// `f16::from_f64` and `bf16::from_f64`, rounded once.
#[gpu_kernel]
pub fn halves_from_f64(d: &[f64], h: &mut [f16], b: &mut [bf16]) {
    let k = grid_1d();
    if k < d.len() {
        h[k] = f16::from_f64(d[k]);
        b[k] = bf16::from_f64(d[k]);
    }
}

pub fn case_halves_from_f64(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = 4_000;
    // The two values that rounded twice through f32 in the first round, then values
    // just off halfway between two 16-bit floats, then anything.
    let mut d = vec![1.000488281251, 2.98e-8, 65520.0, -65519.99, 1e-8, 3.0e38];
    while d.len() < n {
        let x: f64 = r.random_range(-4.0..4.0) * 2f64.powi(r.random_range(-30..20));
        let nudge = 1.0 + r.random_range(-1e-9..1e-9);
        let h = f16::from_f64(x).to_f64();
        d.push(x);
        d.push((h + f16::from_f64(x * 1.001).to_f64()) / 2.0 * nudge);
    }
    d.truncate(n);
    let dd = dev.to_device(&d)?;
    let mut h = poisoned(dev, n, f16::from_f64(7.0))?;
    let mut b = poisoned(dev, n, bf16::from_f64(7.0))?;
    launch!(halves_from_f64[blocks(n, 256), 256](&dd, &mut h, &mut b))?;
    let (gh, gb) = (h.to_host()?, b.to_host()?);
    for k in 0..n {
        let (wh, wb) = (nearest_f16(d[k]), nearest_bf16(d[k]));
        let same = |g: u16, w: u16, nan: bool| g == w || nan && d[k].is_nan();
        if !same(gh[k].to_bits(), wh.to_bits(), gh[k].is_nan())
            || !same(gb[k].to_bits(), wb.to_bits(), gb[k].is_nan())
        {
            return Err(format!(
                "from_f64({:e}): got {:#06x} / {:#06x}, want {:#06x} / {:#06x}",
                d[k],
                gh[k].to_bits(),
                gb[k].to_bits(),
                wh.to_bits(),
                wb.to_bits()
            )
            .into());
        }
    }
    Ok(vec![
        ("f16 bits", gh.iter().map(|v| v.to_bits() as f64).collect()),
        ("bf16 bits", gb.iter().map(|v| v.to_bits() as f64).collect()),
    ])
}

/// The bits of the 16-bit float nearest `d`, ties to even, found by binary search over
/// the format's values (each exact in f64): a reference that rounds once by construction.
/// `value` gives a pattern's value; `max` is the largest finite pattern, `inf` infinity's,
/// and `beyond` the value one step past `max` (where rounding up overflows).
fn nearest16(d: f64, value: fn(u16) -> f64, max: u16, inf: u16, beyond: f64) -> u16 {
    let sign = if d.is_sign_negative() { 0x8000 } else { 0 };
    let a = d.abs();
    if a.is_nan() {
        return inf | 0x40 | sign;
    }
    if a >= beyond {
        return sign | inf;
    }
    // The largest pattern whose value is at most `a`.
    let (mut lo, mut hi) = (0u16, max);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if value(mid) <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let below = value(lo);
    let above = if lo == max { beyond } else { value(lo + 1) };
    let (down, up) = (a - below, above - a);
    let pick = if down < up || (down == up && lo % 2 == 0) {
        lo
    } else {
        lo + 1
    };
    if pick > max {
        sign | inf
    } else {
        sign | pick
    }
}

fn nearest_f16(d: f64) -> f16 {
    f16::from_bits(nearest16(
        d,
        |b| f16::from_bits(b).to_f64(),
        0x7bff,
        0x7c00,
        65536.0,
    ))
}

fn nearest_bf16(d: f64) -> bf16 {
    let beyond = 2f64.powi(128);
    bf16::from_bits(nearest16(
        d,
        |b| bf16::from_bits(b).to_f64(),
        0x7f7f,
        0x7f80,
        beyond,
    ))
}

/// Shifts by any amount and overflowing arithmetic, as a release build computes them.
#[gpu_kernel(overflow_checks = false)]
pub fn wrapping_ops(
    a: &[i32],
    b: &[i32],
    s: &[u32],
    x: &[u64],
    y: &[u64],
    oi: &mut [i32],
    ou: &mut [u64],
) {
    let k = grid_1d();
    if k < a.len() {
        let o = 7 * k;
        oi[o] = a[k] << s[k];
        oi[o + 1] = a[k] >> s[k];
        oi[o + 2] = a[k] + b[k];
        oi[o + 3] = a[k] * b[k];
        oi[o + 4] = -a[k] - b[k];
        oi[o + 5] = a[k].abs();
        // ptxas took `abs` to be non-negative and dropped the sign of the remainder.
        oi[o + 6] = a[k].abs() % (a[k] | 1);
        ou[o] = x[k] << s[k];
        ou[o + 1] = x[k] >> s[k];
        ou[o + 2] = x[k] + y[k];
        ou[o + 3] = x[k] * y[k];
        ou[o + 4] = x[k] - y[k];
        ou[o + 5] = (x[k] as u32 >> (s[k] as i32 - 40)) as u64;
        let w = a[k] as i64 * 4294967296;
        ou[o + 6] = (w.abs() / (a[k] as i64 | 1)) as u64;
    }
}

pub fn case_wrapping(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = 3_000;
    let mut a: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let b: Vec<i32> = (0..n).map(|_| r.random()).collect();
    let s: Vec<u32> = (0..n).map(|_| r.random_range(0..100)).collect();
    let x: Vec<u64> = (0..n).map(|_| r.random()).collect();
    let y: Vec<u64> = (0..n).map(|_| r.random()).collect();
    a[0] = i32::MIN;
    let (da, db, ds, dx, dy) = (
        dev.to_device(&a)?,
        dev.to_device(&b)?,
        dev.to_device(&s)?,
        dev.to_device(&x)?,
        dev.to_device(&y)?,
    );
    let mut oi = poisoned(dev, 7 * n, 7i32)?;
    let mut ou = poisoned(dev, 7 * n, 7u64)?;
    launch!(wrapping_ops[blocks(n, 256), 256](&da, &db, &ds, &dx, &dy, &mut oi, &mut ou))?;
    let (gi, gu) = (oi.to_host()?, ou.to_host()?);
    for k in 0..n {
        let wi = [
            a[k].wrapping_shl(s[k]),
            a[k].wrapping_shr(s[k]),
            a[k].wrapping_add(b[k]),
            a[k].wrapping_mul(b[k]),
            a[k].wrapping_neg().wrapping_sub(b[k]),
            a[k].wrapping_abs(),
            a[k].wrapping_abs().wrapping_rem(a[k] | 1),
        ];
        let wu = [
            x[k].wrapping_shl(s[k]),
            x[k].wrapping_shr(s[k]),
            x[k].wrapping_add(y[k]),
            x[k].wrapping_mul(y[k]),
            x[k].wrapping_sub(y[k]),
            (x[k] as u32).wrapping_shr((s[k] as i32 - 40) as u32) as u64,
            (a[k] as i64)
                .wrapping_mul(4294967296)
                .wrapping_abs()
                .wrapping_div(a[k] as i64 | 1) as u64,
        ];
        if gi[7 * k..7 * k + 7] != wi || gu[7 * k..7 * k + 7] != wu {
            return Err(format!(
                "a {} b {} s {} x {} y {}: got {:?} {:?}, want {wi:?} {wu:?}",
                a[k],
                b[k],
                s[k],
                x[k],
                y[k],
                &gi[7 * k..7 * k + 7],
                &gu[7 * k..7 * k + 7]
            )
            .into());
        }
    }
    Ok(vec![
        ("i32", halves(gi.iter().map(|&v| v as u32 as u64))),
        ("u64", halves(gu)),
    ])
}

/// Operations Rust defines as panics, one per `op`, in thread `at` only.
#[gpu_kernel(overflow_checks = true)]
pub fn integer_faults(a: &[i32], u: &[u64], op: u32, at: usize, out: &mut [i64]) {
    let k = grid_1d();
    if k < out.len() {
        let here = k == at;
        let x = if here { a[0] } else { 7 };
        let y = if here { a[1] } else { 2 };
        let p = if here { u[0] } else { 7 };
        let q = if here { u[1] } else { 2 };
        let v = if op == 0 {
            (x / y) as i64
        } else if op == 1 {
            (x % y) as i64
        } else if op == 2 {
            (x + y) as i64
        } else if op == 3 {
            (p * q) as i64
        } else if op == 4 {
            (p - q) as i64
        } else if op == 5 {
            (x << (y as u32)) as i64
        } else {
            (-x) as i64
        };
        out[k] = v;
    }
}

pub fn case_integer_faults(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = 1_000;
    let mut out = poisoned(dev, n, 0i64)?;
    let mut seen = Vec::new();
    // (op, a, u, Rust's panic message)
    let faults: [(u32, [i32; 2], [u64; 2], &str); 8] = [
        (0, [5, 0], [0, 0], "attempt to divide by zero"),
        (0, [i32::MIN, -1], [0, 0], "attempt to divide with overflow"),
        (
            1,
            [5, 0],
            [0, 0],
            "attempt to calculate the remainder with a divisor of zero",
        ),
        (
            1,
            [i32::MIN, -1],
            [0, 0],
            "attempt to calculate the remainder with overflow",
        ),
        (2, [i32::MAX, 1], [0, 0], "attempt to add with overflow"),
        (
            3,
            [0, 0],
            [u64::MAX, 2],
            "attempt to multiply with overflow",
        ),
        (4, [0, 0], [1, 2], "attempt to subtract with overflow"),
        (5, [1, 32], [0, 0], "attempt to shift left with overflow"),
    ];
    for (op, a, u, message) in faults {
        let at = r.random_range(0..n);
        let (da, du) = (dev.to_device(&a)?, dev.to_device(&u)?);
        let launched = launch!(integer_faults[blocks(n, 128), 128](&da, &du, op, at, &mut out));
        match launched.and_then(|()| dev.synchronize()) {
            Err(GpuError::IntegerFault {
                kernel, operation, ..
            }) if kernel == "integer_faults" && operation == message => seen.push(1.0),
            other => {
                return Err(format!("op {op} at {at}: expected `{message}`, got {other:?}").into())
            }
        }
    }
    // `-i32::MIN` too, and then the device works: no thread faults, every value right.
    let da = dev.to_device(&[i32::MIN, 0])?;
    let du = dev.to_device(&[0u64, 0])?;
    match launch!(integer_faults[blocks(n, 128), 128](&da, &du, 6, 3, &mut out))
        .and_then(|()| dev.synchronize())
    {
        Err(GpuError::IntegerFault {
            operation: "attempt to negate with overflow",
            ..
        }) => seen.push(1.0),
        other => return Err(format!("negation: got {other:?}").into()),
    }
    launch!(integer_faults[blocks(n, 128), 128](&da, &du, 0, n, &mut out))?;
    let got = out.to_host()?;
    if got.iter().any(|&v| v != 3) {
        return Err(format!("after the faults: {:?}", &got[..8]).into());
    }
    Ok(vec![("faults", seen)])
}

/// `powi`, by the host's algorithm.
/// Writes the indices of `(start..end).step_by(step)` for each thread's triple (up to
/// `cap` of them) and how many there were.
macro_rules! stepped_kernel {
    ($name:ident, $t:ty) => {
        #[gpu_kernel]
        pub fn $name(start: &[$t], end: &[$t], step: &[usize], out: &mut [$t], count: &mut [u32]) {
            let k = grid_1d();
            if k < count.len() {
                let cap = out.len() / count.len();
                let mut c = 0u32;
                // Unrolling changes no result (NVRTC's `#pragma unroll` in a stepped loop).
                #[unroll(2)]
                for i in (start[k]..end[k]).step_by(step[k]) {
                    if (c as usize) < cap {
                        out[k * cap + c as usize] = i;
                    }
                    c += 1;
                }
                count[k] = c;
            }
        }
    };
}
stepped_kernel!(stepped_i32, i32);
stepped_kernel!(stepped_u32, u32);
stepped_kernel!(stepped_i64, i64);

/// Triples of `(start, end, step)` whose loops run at most about `cap` times: the
/// extremes of the type and steps past its range, then random ones.
fn step_triples<T>(
    r: &mut rand::rngs::StdRng,
    n: usize,
    min: T,
    max: T,
    cap: usize,
) -> Vec<(T, T, usize)>
where
    T: Copy + Into<i128> + TryFrom<i128> + rand::distr::uniform::SampleUniform + PartialOrd,
{
    let at = |v: i128| T::try_from(v).ok().unwrap_or(max);
    let hi: i128 = max.into();
    // Steps around the type's width `w`: 2^(w-1), 2^w - 1, 2^w + 1 (past a 32-bit type).
    let w = hi.ilog2() + 1 + u32::from(min.into() < 0);
    let near = |p: u32, d: i128| usize::try_from((1i128 << p) + d).unwrap_or(usize::MAX);
    let mut t = vec![
        (min, max, near(w - 1, 0)),
        (min, max, near(w, -1)),
        (min, max, near(w, 1)),
        (min, max, near(w - 2, 3)),
        (min, max, usize::MAX),
        (at(0), at(10), 1usize << 33),
        (at(hi - 1), max, 1),
        (max, min, 1),
        (at(5), at(5), 3),
    ];
    while t.len() < n {
        let (a, b) = (r.random_range(min..=max), r.random_range(min..=max));
        let (a, b) = if a <= b { (a, b) } else { (b, a) };
        let span = (b.into() - a.into()) as u128;
        let step = (span / r.random_range(1..cap as u128)).max(1);
        let step = usize::try_from(step).unwrap_or(usize::MAX);
        t.push((a, b, step));
    }
    t
}

/// Launches a `stepped_*` kernel: `(start, end, step, out, count)`.
type SteppedLaunch<T> = fn(
    &DeviceArray<T>,
    &DeviceArray<T>,
    &DeviceArray<usize>,
    &mut DeviceArray<T>,
    &mut DeviceArray<u32>,
) -> Result<(), GpuError>;

fn run_stepped<T>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    kernel: &'static str,
    launch_it: SteppedLaunch<T>,
    min: T,
    max: T,
) -> CaseResult<Vec<f64>>
where
    T: gpu_runtime::Dtype
        + Copy
        + Into<i128>
        + TryFrom<i128>
        + rand::distr::uniform::SampleUniform
        + PartialOrd,
    std::ops::Range<T>: Iterator<Item = T>,
{
    const CAP: usize = 80;
    let n = 200;
    let triples = step_triples(r, n, min, max, CAP - 16);
    let (s, e, st): (Vec<T>, Vec<T>, Vec<usize>) = (
        triples.iter().map(|t| t.0).collect(),
        triples.iter().map(|t| t.1).collect(),
        triples.iter().map(|t| t.2).collect(),
    );
    let (ds, de, dst) = (dev.to_device(&s)?, dev.to_device(&e)?, dev.to_device(&st)?);
    let mut out = poisoned(dev, n * CAP, max)?;
    let mut count = poisoned(dev, n, u32::MAX)?;
    launch_it(&ds, &de, &dst, &mut out, &mut count)?;
    let (got, got_count) = (out.to_host()?, count.to_host()?);
    let mut seen = Vec::new();
    for (k, &(a, b, step)) in triples.iter().enumerate() {
        let want: Vec<T> = (a..b).step_by(step).collect();
        let c = got_count[k] as usize;
        let stored = &got[k * CAP..k * CAP + want.len().min(CAP)];
        if c != want.len() || stored != &want[..want.len().min(CAP)] {
            let show = |v: &[T]| v.iter().map(|&x| x.into()).collect::<Vec<i128>>();
            return Err(format!(
                "{kernel}: ({:?}..{:?}).step_by({step}): {c} indices {:?}, Rust has {} {:?}",
                a.into(),
                b.into(),
                show(stored),
                want.len(),
                show(&want)
            )
            .into());
        }
        seen.push(c as f64);
    }
    // A zero step faults, as it panics in Rust, and the device works after.
    let mut zero = st.clone();
    zero[r.random_range(0..n)] = 0;
    let dz = dev.to_device(&zero)?;
    match launch_it(&ds, &de, &dz, &mut out, &mut count).and_then(|()| dev.synchronize()) {
        Err(GpuError::IntegerFault {
            operation: "assertion failed: step != 0",
            ..
        }) => seen.push(-1.0),
        other => return Err(format!("{kernel}: step_by(0) gave {other:?}").into()),
    }
    launch_it(&ds, &de, &dst, &mut out, &mut count)?;
    if count.to_host()? != got_count {
        return Err(format!("{kernel}: counts differ after the fault").into());
    }
    Ok(seen)
}

pub fn case_stepped_loops(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let i32s = run_stepped(
        dev,
        &mut r,
        "stepped_i32",
        |s, e, st, o, c| {
            let (g, b) = (blocks(c.len(), 64), 64);
            launch!(stepped_i32[g, b](s, e, st, o, c))
        },
        i32::MIN,
        i32::MAX,
    )?;
    let u32s = run_stepped(
        dev,
        &mut r,
        "stepped_u32",
        |s, e, st, o, c| {
            let (g, b) = (blocks(c.len(), 64), 64);
            launch!(stepped_u32[g, b](s, e, st, o, c))
        },
        u32::MIN,
        u32::MAX,
    )?;
    let i64s = run_stepped(
        dev,
        &mut r,
        "stepped_i64",
        |s, e, st, o, c| {
            let (g, b) = (blocks(c.len(), 64), 64);
            launch!(stepped_i64[g, b](s, e, st, o, c))
        },
        i64::MIN,
        i64::MAX,
    )?;
    Ok(vec![("i32", i32s), ("u32", u32s), ("i64", i64s)])
}

#[gpu_kernel]
pub fn powi_bits(x: &[f32], d: &[f64], n: &[i32], ox: &mut [f32], od: &mut [f64]) {
    let k = grid_1d();
    if k < x.len() {
        ox[k] = x[k].powi(n[k]);
        od[k] = d[k].powi(n[k]);
    }
}

pub fn case_powi(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let count = 5_000;
    let x: Vec<f32> = (0..count).map(|_| r.random_range(-3.0f32..3.0)).collect();
    let d: Vec<f64> = (0..count).map(|_| r.random_range(-3.0f64..3.0)).collect();
    let n: Vec<i32> = (0..count).map(|_| r.random_range(-40..41)).collect();
    let (dx, ddv, dn) = (dev.to_device(&x)?, dev.to_device(&d)?, dev.to_device(&n)?);
    let mut ox = poisoned(dev, count, f32::NAN)?;
    let mut od = poisoned(dev, count, f64::NAN)?;
    launch!(powi_bits[blocks(count, 256), 256](&dx, &ddv, &dn, &mut ox, &mut od))?;
    let (gx, gd) = (ox.to_host()?, od.to_host()?);
    for k in 0..count {
        let (wx, wd) = (x[k].powi(n[k]), d[k].powi(n[k]));
        if gx[k].to_bits() != wx.to_bits() || gd[k].to_bits() != wd.to_bits() {
            return Err(format!(
                "powi({}, {}): got {} / {}, want {wx} / {wd}",
                x[k], n[k], gx[k], gd[k]
            )
            .into());
        }
    }
    Ok(vec![
        ("f32", halves(gx.iter().map(|v| v.to_bits() as u64))),
        ("f64", halves(gd.iter().map(|v| v.to_bits()))),
    ])
}

/// `+ - * /` and `sqrt` without contraction: the host's bits.
#[gpu_kernel(fmad = false)]
pub fn uncontracted<T: Float>(a: &[T], b: &[T], c: &[T], out: &mut [T]) {
    let k = grid_1d();
    if k < a.len() {
        let o = 4 * k;
        out[o] = a[k] * b[k] + c[k];
        out[o + 1] = a[k] * b[k] - c[k] * a[k];
        out[o + 2] = (a[k] / b[k]).sqrt() + c[k];
        out[o + 3] = a[k] * a[k] * b[k] + c[k] / b[k];
    }
}

pub fn case_uncontracted(dev: &Device, seed: u64) -> CaseResult {
    fn run<T: Float + rand::distr::uniform::SampleUniform + Into<f64>>(
        dev: &Device,
        r: &mut rand::rngs::StdRng,
        bits: fn(T) -> u64,
    ) -> CaseResult<Vec<f64>> {
        let n = 4_000;
        let gen = |r: &mut rand::rngs::StdRng| -> Vec<T> {
            (0..n)
                .map(|_| r.random_range(T::from_f64(0.001)..T::from_f64(1000.0)))
                .collect()
        };
        let (a, b, c) = (gen(r), gen(r), gen(r));
        let (da, db, dc) = (dev.to_device(&a)?, dev.to_device(&b)?, dev.to_device(&c)?);
        let mut out = poisoned(dev, 4 * n, T::from_f64(f64::NAN))?;
        launch!(uncontracted[blocks(n, 256), 256](&da, &db, &dc, &mut out))?;
        let got = out.to_host()?;
        for k in 0..n {
            let want = [
                a[k] * b[k] + c[k],
                a[k] * b[k] - c[k] * a[k],
                (a[k] / b[k]).sqrt() + c[k],
                a[k] * a[k] * b[k] + c[k] / b[k],
            ];
            for (j, w) in want.iter().enumerate() {
                if bits(got[4 * k + j]) != bits(*w) {
                    return Err(format!(
                        "element {k} form {j}: got {:?}, want {w:?}",
                        got[4 * k + j]
                    )
                    .into());
                }
            }
        }
        Ok(halves(got.iter().map(|&v| bits(v))))
    }
    let mut r = rng(seed);
    Ok(vec![
        ("f32", run::<f32>(dev, &mut r, |v| v.to_bits() as u64)?),
        ("f64", run::<f64>(dev, &mut r, |v| v.to_bits())?),
    ])
}

/// Rust's wrapping and rotating integer methods, generic over every integer dtype.
#[gpu_kernel]
pub fn int_methods<T: Int>(a: &[T], b: &[T], n: &[u32], out: &mut [T]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() && i < n.len() && 5 * i + 4 < out.len() {
        out[5 * i] = a[i].wrapping_add(b[i]);
        out[5 * i + 1] = a[i].wrapping_sub(b[i]);
        out[5 * i + 2] = a[i].wrapping_mul(b[i]);
        out[5 * i + 3] = a[i].rotate_left(n[i]);
        out[5 * i + 4] = b[i].rotate_right(n[i]);
    }
}

fn check_int_methods<T: gpu_runtime::Int + std::fmt::Debug>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
    poison: T,
) -> CaseResult<()>
where
    rand::distr::StandardUniform: rand::distr::Distribution<T>,
{
    let len = r.random_range(500..2000);
    let a: Vec<T> = (0..len).map(|_| r.random()).collect();
    let b: Vec<T> = (0..len).map(|_| r.random()).collect();
    // Amounts past the width too: Rust rotates by the amount modulo the width.
    let n: Vec<u32> = (0..len).map(|_| r.random_range(0..200)).collect();
    let (da, db, dn) = (dev.to_device(&a)?, dev.to_device(&b)?, dev.to_device(&n)?);
    let mut dout = poisoned(dev, 5 * len, poison)?;
    launch!(int_methods[blocks(len, 128), 128](&da, &db, &dn, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let want = [
            a[i].wrapping_add(b[i]),
            a[i].wrapping_sub(b[i]),
            a[i].wrapping_mul(b[i]),
            a[i].rotate_left(n[i]),
            b[i].rotate_right(n[i]),
        ];
        if got[5 * i..5 * i + 5] != want {
            return Err(format!(
                "{name}: a = {:?}, b = {:?}, n = {}: got {:?}, want {want:?}",
                a[i],
                b[i],
                n[i],
                &got[5 * i..5 * i + 5]
            )
            .into());
        }
    }
    // The low 52 bits, exact in f64, for the GPU-simulator comparison.
    out.push((
        name,
        got.iter()
            .map(|v| (v.to_bits64() & ((1 << 52) - 1)) as f64)
            .collect(),
    ));
    Ok(())
}

pub fn case_int_methods(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    check_int_methods::<i32>(dev, &mut r, &mut out, "i32", 0x5A5A_5A5A)?;
    check_int_methods::<i64>(dev, &mut r, &mut out, "i64", 0x5A5A_5A5A)?;
    check_int_methods::<u32>(dev, &mut r, &mut out, "u32", 0x5A5A_5A5A)?;
    check_int_methods::<u64>(dev, &mut r, &mut out, "u64", 0x5A5A_5A5A)?;
    Ok(out)
}

/// The random program that found NVRTC keeping the sign of `fabsf(c ? -0.0f : 1.125f)`:
/// `abs` of a selected negative zero, in f32 and f64, must be +0.0 as in Rust.
#[gpu_kernel(fmad = false, overflow_checks = false)]
pub fn abs_of_negative_zero(x: &[u32], of32: &mut [f32], of64: &mut [f64]) {
    let i = grid_1d();
    if i < of32.len() {
        let a = x[i];
        of32[i] = (if 31u32 >= a { -0.0f32 } else { 1.125f32 }).abs();
        of64[i] = (((if 31u32 >= a { -0.0f32 } else { 1.125f32 }).abs()) as f32) as f64
            + (if a % 2 == 0 { -0.0f64 } else { -2.5f64 }).abs();
    }
}

pub fn case_abs_of_negative_zero(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1_000..5_000);
    let x: Vec<u32> = (0..n).map(|_| r.random_range(0..64)).collect();
    let dx = dev.to_device(&x)?;
    let mut o32 = poisoned(dev, n, f32::NAN)?;
    let mut o64 = poisoned(dev, n, f64::NAN)?;
    launch!(abs_of_negative_zero[blocks(n, 256), 256](&dx, &mut o32, &mut o64))?;
    let want32: Vec<f32> = x
        .iter()
        .map(|&a| (if 31 >= a { -0.0f32 } else { 1.125 }).abs())
        .collect();
    let want64: Vec<f64> = x
        .iter()
        .map(|&a| {
            ((if 31 >= a { -0.0f32 } else { 1.125 }).abs()) as f64
                + (if a % 2 == 0 { -0.0f64 } else { -2.5 }).abs()
        })
        .collect();
    let (g32, g64) = (o32.to_host()?, o64.to_host()?);
    for i in 0..n {
        if g32[i].to_bits() != want32[i].to_bits() || g64[i].to_bits() != want64[i].to_bits() {
            return Err(format!(
                "x = {}: got {:?} / {:?}, want {:?} / {:?}",
                x[i], g32[i], g64[i], want32[i], want64[i]
            )
            .into());
        }
    }
    out.push(("abs f32", f64s(&g32)));
    out.push(("abs f64", g64));
    Ok(out)
}
