//! The standard forms added after the first lists: integer `pow`, `abs_diff`,
//! `rem_euclid` and `div_euclid` (with their faults), float `to_bits`/`from_bits`,
//! `sin_cos`, slice `swap` and `mem::swap`. Each against Rust's own on the host, bit for
//! bit.

use gpu_runtime::prelude::*;
use gpu_runtime::Dtype;
use rand::Rng;

use super::support::*;
use super::Outputs;

/// Integer powers and Euclidean division, wrapping (random operands overflow `pow`).
#[gpu_kernel(overflow_checks = false)]
pub fn int_powers<Elem: Int>(a: &[Elem], b: &[Elem], e: &[u32], out: &mut [Elem]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() && i < e.len() && 4 * i + 3 < out.len() {
        out[4 * i] = a[i].pow(e[i]);
        out[4 * i + 1] = a[i].rem_euclid(b[i]);
        out[4 * i + 2] = a[i].div_euclid(b[i]);
        out[4 * i + 3] = Elem::pow(b[i], 3);
    }
}

/// Random integers for `int_powers`: small and special values, and divisors that are
/// never 0 nor -1.
fn power_inputs<T: Int + Dtype>(r: &mut rand::rngs::StdRng, n: usize) -> (Vec<T>, Vec<T>, Vec<u32>)
where
    rand::distr::StandardUniform: rand::distr::Distribution<T>,
{
    let special = [
        T::zero(),
        T::one(),
        T::from_i32(-1),
        T::from_i32(2),
        T::from_i32(-3),
    ];
    let pick = |r: &mut rand::rngs::StdRng, k: usize| match k % 3 {
        0 => special[r.random_range(0..special.len())],
        1 => T::from_i32(r.random_range(-20..20)),
        _ => r.random(),
    };
    let a: Vec<T> = (0..n).map(|k| pick(r, k)).collect();
    // Divisors never 0, nor -1 (which faults under `MIN`): both are `case_std_form_faults`'.
    let b: Vec<T> = (0..n)
        .map(|k| {
            let v = pick(r, k + 1);
            if v == T::zero() || v == T::from_i32(-1) {
                T::from_i32(7)
            } else {
                v
            }
        })
        .collect();
    let e = (0..n)
        .map(|k| {
            if k % 2 == 0 {
                r.random_range(0..6)
            } else {
                r.random_range(0..70)
            }
        })
        .collect();
    (a, b, e)
}

fn check_int_powers<T: Int + Dtype + std::fmt::Debug>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
) -> CaseResult<()>
where
    rand::distr::StandardUniform: rand::distr::Distribution<T>,
{
    let len = r.random_range(500..1500);
    let (a, b, e) = power_inputs::<T>(r, len);
    let (da, db, de) = (dev.to_device(&a)?, dev.to_device(&b)?, dev.to_device(&e)?);
    let mut dout = poisoned(dev, 4 * len, T::from_i32(0x5A))?;
    launch!(int_powers[blocks(len, 128), 128](&da, &db, &de, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let want = [
            wrapping_pow(a[i], e[i]),
            Int::rem_euclid(a[i], b[i]),
            Int::div_euclid(a[i], b[i]),
            wrapping_pow(b[i], 3),
        ];
        if got[4 * i..4 * i + 4] != want {
            return Err(format!(
                "{name}: a = {:?}, b = {:?}, e = {}: got {:?}, want {want:?} (pow rem_euclid \
                 div_euclid pow(b, 3))",
                a[i],
                b[i],
                e[i],
                &got[4 * i..4 * i + 4]
            )
            .into());
        }
    }
    out.push((
        name,
        got.iter()
            .map(|v| (v.to_bits64() & ((1 << 52) - 1)) as f64)
            .collect(),
    ));
    Ok(())
}

/// `x.pow(e)` as Rust computes it without overflow checks, by its own squaring.
fn wrapping_pow<T: Int>(x: T, e: u32) -> T {
    (0..e).fold(T::one(), |acc, _| acc.wrapping_mul(x))
}

#[gpu_kernel]
pub fn abs_diffs(
    a: &[i32],
    b: &[i32],
    c: &[i8],
    d: &[u64],
    wide: &mut [u32],
    narrow: &mut [u8],
    big: &mut [u64],
) {
    let i = grid_1d();
    if i < a.len()
        && i < b.len()
        && i < c.len()
        && i < d.len()
        && i < wide.len()
        && i < narrow.len()
        && i < big.len()
    {
        wide[i] = a[i].abs_diff(b[i]);
        narrow[i] = c[i].abs_diff(c[(i + 1) % c.len()] / 2);
        big[i] = u64::abs_diff(d[i], 1u64 << 63);
    }
}

fn check_abs_diffs(dev: &Device, r: &mut rand::rngs::StdRng, out: &mut Outputs) -> CaseResult<()> {
    let len = r.random_range(300..900);
    let mut a: Vec<i32> = (0..len).map(|_| r.random()).collect();
    let b: Vec<i32> = (0..len).map(|_| r.random()).collect();
    let c: Vec<i8> = (0..len).map(|_| r.random()).collect();
    let d: Vec<u64> = (0..len).map(|_| r.random()).collect();
    a[0] = i32::MIN;
    let (da, db, dc, dd) = (
        dev.to_device(&a)?,
        dev.to_device(&b)?,
        dev.to_device(&c)?,
        dev.to_device(&d)?,
    );
    let mut wide = poisoned(dev, len, 0xDEAD_u32)?;
    let mut narrow = poisoned(dev, len, 0x5A_u8)?;
    let mut big = poisoned(dev, len, 0xDEAD_u64)?;
    launch!(abs_diffs[blocks(len, 64), 64](&da, &db, &dc, &dd, &mut wide, &mut narrow, &mut big))?;
    let (wide, narrow, big) = (wide.to_host()?, narrow.to_host()?, big.to_host()?);
    for i in 0..len {
        let want = (
            a[i].abs_diff(b[i]),
            c[i].abs_diff(c[(i + 1) % len] / 2),
            d[i].abs_diff(1u64 << 63),
        );
        if (wide[i], narrow[i], big[i]) != want {
            return Err(format!(
                "abs_diff at {i}: got {:?}, want {want:?}",
                (wide[i], narrow[i], big[i])
            )
            .into());
        }
    }
    out.push((
        "abs_diff",
        wide.iter()
            .map(|&v| f64::from(v))
            .chain(narrow.iter().map(|&v| f64::from(v)))
            .chain(big.iter().map(|&v| (v >> 12) as f64))
            .collect(),
    ));
    Ok(())
}

/// Bits of floats, `sin_cos`, and swaps of array elements and of locals.
#[gpu_kernel]
pub fn bits_and_swaps(
    x: &[f32],
    y: &[f64],
    h: &[f16],
    bits: &mut [u32],
    wide: &mut [u64],
    halves: &mut [u16],
    back: &mut [f32],
    trig: &mut [f32],
    pairs: &mut [f32],
) {
    let i = grid_1d();
    if i < x.len()
        && i < y.len()
        && i < h.len()
        && i < bits.len()
        && i < wide.len()
        && i < halves.len()
        && i < back.len()
        && 4 * i + 3 < trig.len()
    {
        bits[i] = x[i].to_bits();
        wide[i] = y[i].to_bits() ^ 1;
        halves[i] = h[i].to_bits();
        back[i] = f32::from_bits(bits[i].rotate_left(1));
        let (s, c) = x[i].sin_cos();
        let (s2, c2) = f32::sin_cos(x[i] * 0.5);
        trig[4 * i] = s;
        trig[4 * i + 1] = c;
        trig[4 * i + 2] = s2 - (x[i] * 0.5).sin();
        trig[4 * i + 3] = c2 - (x[i] * 0.5).cos();
        // Each thread swaps its own pair of `pairs`, a local array's ends and two locals.
        if 2 * i + 1 < pairs.len() {
            pairs.swap(2 * i, 2 * i + 1);
            // A swap as a block's value (no `;`), which never runs here (|x| <= 50).
            if x[i] > 1000.0 {
                pairs.swap(2 * i, 2 * i + 1)
            }
            let mut local = [1.0f32; 4];
            local[0] = x[i];
            local[3] = -x[i];
            local.swap(0, 3);
            let (mut p, mut q) = (local[0], local[3]);
            std::mem::swap(&mut p, &mut q);
            let k = 2 * i + 1;
            std::mem::swap(&mut pairs[k], &mut back[i]);
            pairs[2 * i] += p - q;
        }
    }
}

fn check_bits_and_swaps(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
) -> CaseResult<()> {
    let len = r.random_range(300..900);
    let x = uniform_f32(r, len, -50.0, 50.0);
    let y = uniform_f64(r, len, -1e6, 1e6);
    let h: Vec<f16> = (0..len)
        .map(|_| f16::from_f64(r.random_range(-100.0..100.0)))
        .collect();
    let p = uniform_f32(r, 2 * len, -10.0, 10.0);
    let (dx, dy, dh) = (dev.to_device(&x)?, dev.to_device(&y)?, dev.to_device(&h)?);
    let mut bits = poisoned(dev, len, 0xDEAD_u32)?;
    let mut wide = poisoned(dev, len, 0xDEAD_u64)?;
    let mut half = poisoned(dev, len, 0xDEAD_u16)?;
    let mut back = poisoned(dev, len, f32::NAN)?;
    let mut trig = poisoned(dev, 4 * len, f32::NAN)?;
    let mut pairs = dev.to_device(&p)?;
    launch!(bits_and_swaps[blocks(len, 64), 64](&dx, &dy, &dh, &mut bits, &mut wide, &mut half, &mut back, &mut trig, &mut pairs))?;
    let (bits, wide, half) = (bits.to_host()?, wide.to_host()?, half.to_host()?);
    let (back, trig, pairs) = (back.to_host()?, trig.to_host()?, pairs.to_host()?);
    for i in 0..len {
        let want_back = p[2 * i];
        let rotated = f32::from_bits(x[i].to_bits().rotate_left(1));
        let (p0, p1) = (p[2 * i], p[2 * i + 1]);
        // After `pairs.swap`: (p1, p0); then pairs[2i + 1] and back[i] trade, and
        // pairs[2i] gains p - q = x - (-x), the swapped ends of the local array swapped back.
        let want_pairs = (p1 + (x[i] - -x[i]), rotated);
        let trig_ok = (trig[4 * i] - x[i].sin()).abs() <= 1e-6
            && (trig[4 * i + 1] - x[i].cos()).abs() <= 1e-6
            && trig[4 * i + 2] == 0.0
            && trig[4 * i + 3] == 0.0;
        let ok = bits[i] == x[i].to_bits()
            && wide[i] == y[i].to_bits() ^ 1
            && half[i] == h[i].to_bits()
            && back[i].to_bits() == p0.to_bits()
            && (pairs[2 * i].to_bits(), pairs[2 * i + 1].to_bits())
                == (want_pairs.0.to_bits(), want_pairs.1.to_bits())
            && trig_ok;
        if !ok {
            return Err(format!(
                "bits and swaps at {i}: x = {}, got bits {:#x} {:#x} {:#x}, back {}, pairs {:?}, trig {:?}; \
                 want {:#x} {:#x} {:#x}, back {want_back}, pairs {want_pairs:?}, sin {} cos {}",
                x[i],
                bits[i],
                wide[i],
                half[i],
                back[i],
                (pairs[2 * i], pairs[2 * i + 1]),
                &trig[4 * i..4 * i + 4],
                x[i].to_bits(),
                y[i].to_bits() ^ 1,
                h[i].to_bits(),
                x[i].sin(),
                x[i].cos()
            )
            .into());
        }
    }
    out.push((
        "bits and swaps",
        bits.iter()
            .map(|&v| f64::from(v))
            .chain(wide.iter().map(|&v| (v >> 12) as f64))
            .chain(half.iter().map(|&v| f64::from(v)))
            .chain(back.iter().chain(&pairs).map(|&v| f64::from(v.to_bits())))
            .collect(),
    ));
    Ok(())
}

pub fn case_std_forms(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    macro_rules! each {
        ($($t:ident),*) => {
            $(check_int_powers::<$t>(dev, &mut r, &mut out, stringify!($t))?;)*
        };
    }
    each!(i8, u8, i16, u16, i32, u32, i64, u64);
    check_abs_diffs(dev, &mut r, &mut out)?;
    check_bits_and_swaps(dev, &mut r, &mut out)?;
    Ok(out)
}

/// One operation that faults, chosen by `op`, at element `at`.
#[gpu_kernel(overflow_checks = true)]
pub fn std_form_faults(a: &[i32], e: &[u32], op: u32, at: usize, out: &mut [i32]) {
    let i = grid_1d();
    if i < out.len() && a.len() == 2 && e.len() == 1 {
        let x = if i == at { a[0] } else { 2 };
        let y = if i == at { a[1] } else { 3 };
        out[i] = match op {
            0 => x.pow(e[0]),
            1 => x.rem_euclid(y),
            2 => x.div_euclid(y),
            _ => i32::rem_euclid(x, y),
        };
    }
}

pub fn case_std_form_faults(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let n = 1_000;
    let mut out = poisoned(dev, n, 0i32)?;
    let mut seen = Vec::new();
    let faults: [(u32, [i32; 2], u32, &str); 5] = [
        (0, [3, 0], 20, "attempt to multiply with overflow"),
        (
            1,
            [5, 0],
            0,
            "attempt to calculate the remainder with a divisor of zero",
        ),
        (2, [5, 0], 0, "attempt to divide by zero"),
        (2, [i32::MIN, -1], 0, "attempt to divide with overflow"),
        (
            3,
            [i32::MIN, -1],
            0,
            "attempt to calculate the remainder with overflow",
        ),
    ];
    for (op, a, e, message) in faults {
        let at = r.random_range(0..n);
        let (da, de) = (dev.to_device(&a)?, dev.to_device(&[e])?);
        let launched = launch!(std_form_faults[blocks(n, 128), 128](&da, &de, op, at, &mut out));
        match launched.and_then(|()| dev.synchronize()) {
            Err(GpuError::IntegerFault {
                kernel, operation, ..
            }) if kernel == "std_form_faults" && operation == message => seen.push(f64::from(op)),
            other => {
                return Err(format!("op {op} at {at}: expected `{message}`, got {other:?}").into())
            }
        }
    }
    // The device works after them, and a power that fits does not fault.
    let (da, de) = (dev.to_device(&[3, 1])?, dev.to_device(&[19u32])?);
    launch!(std_form_faults[blocks(n, 128), 128](&da, &de, 0, 0, &mut out))?;
    let got = out.to_host()?;
    if got[0] != 3i32.pow(19) || got[1] != 1 << 19 {
        return Err(format!("pow after the faults: got {} {}", got[0], got[1]).into());
    }
    Ok(vec![("faults", seen)])
}

/// A struct whose own methods are named as the number methods the simulator rewrites
/// (`abs`, `pow`, `rem_euclid`) and as `Into::into`: its own are called, on both backends.
#[gpu_struct]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Modular {
    pub v: u32,
}

#[gpu_device]
impl Modular {
    fn pow(self, n: u32) -> Modular {
        let mut r = 1u32;
        for _ in 0..n {
            r = r * self.v % 1009;
        }
        Modular { v: r }
    }
    fn abs(&self) -> u32 {
        self.v
    }
    fn rem_euclid(self, m: u32) -> u32 {
        self.v % m + 1
    }
    #[allow(clippy::wrong_self_convention)]
    fn into(self) -> u32 {
        self.v * 2
    }
}

#[gpu_kernel]
pub fn struct_named_methods(a: &[Modular], e: &[u32], out: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() && i < e.len() && 3 * i + 2 < out.len() {
        let p = a[i];
        let q: Modular = p.pow(e[i]);
        let twice: u32 = p.into();
        out[3 * i] = q.abs() + twice;
        out[3 * i + 1] = p.rem_euclid(10);
        out[3 * i + 2] = (e[i] as i32 - 3).pow(2) as u32 + i32::abs(-(e[i] as i32)) as u32;
    }
}

pub fn case_struct_named_methods(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let len = r.random_range(100..400);
    let a: Vec<Modular> = (0..len)
        .map(|_| Modular {
            v: r.random_range(0..1009),
        })
        .collect();
    let e: Vec<u32> = (0..len).map(|_| r.random_range(0..9)).collect();
    let (da, de) = (dev.to_device(&a)?, dev.to_device(&e)?);
    let mut dout = poisoned(dev, 3 * len, 0xDEAD_u32)?;
    launch!(struct_named_methods[blocks(len, 64), 64](&da, &de, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let power = (0..e[i]).fold(1u32, |acc, _| acc * a[i].v % 1009);
        let k = e[i] as i32;
        let want = [
            power + a[i].v * 2,
            a[i].v % 10 + 1,
            ((k - 3).pow(2) + k) as u32,
        ];
        if got[3 * i..3 * i + 3] != want {
            return Err(format!(
                "struct methods at {i}: a = {:?}, e = {}: got {:?}, want {want:?}",
                a[i],
                e[i],
                &got[3 * i..3 * i + 3]
            )
            .into());
        }
    }
    Ok(vec![(
        "struct methods",
        got.iter().map(|&v| f64::from(v)).collect(),
    )])
}

/// `get(i).copied()`, `first().copied()` and `last().copied()` of a parameter, a local and
/// a shared array, in and past range, read with `unwrap_or` and `match`.
#[gpu_kernel]
pub fn element_options(x: &[f32], out: &mut [f32], ends: &mut [f32]) {
    let i = grid_1d();
    let tile = shared_array::<f32, 64>();
    let t = thread_idx().x as usize;
    tile[t] = t as f32 * 0.5;
    sync_threads();
    if i < out.len() {
        let right = x.get(i + 1).copied().unwrap_or(-1.0);
        let far = match x.get(i * 3).cloned() {
            Some(v) => v,
            None => -5.0,
        };
        let local = [1.5f32, 2.5, 3.5];
        let l = local.get(i % 5).copied().unwrap_or(-2.0);
        let s = tile.get(t + 60).copied().unwrap_or(-3.0);
        out[i] = right + far * 2.0 + l * 4.0 + s * 8.0;
    }
    if i == 0 {
        ends[0] = x.first().copied().unwrap_or(-7.0);
        ends[1] = x.last().copied().unwrap_or(-7.0);
    }
}

pub fn case_element_options(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    for n in [0usize, 1, 200] {
        let x: Vec<f32> = (0..n).map(|_| r.random_range(-8.0..8.0f32)).collect();
        let dx = dev.to_device(&x)?;
        let m = 256;
        let mut d = poisoned(dev, m, f32::NAN)?;
        let mut ends = poisoned(dev, 2, f32::NAN)?;
        launch!(element_options[m / 64, 64](&dx, &mut d, &mut ends))?;
        let want: Vec<f32> = (0..m)
            .map(|i| {
                let t = i % 64;
                let right = x.get(i + 1).copied().unwrap_or(-1.0);
                let far = x.get(i * 3).copied().unwrap_or(-5.0);
                let l = [1.5f32, 2.5, 3.5].get(i % 5).copied().unwrap_or(-2.0);
                let s = if t + 60 < 64 {
                    (t + 60) as f32 * 0.5
                } else {
                    -3.0
                };
                right + far * 2.0 + l * 4.0 + s * 8.0
            })
            .collect();
        let ends_want = [
            x.first().copied().unwrap_or(-7.0),
            x.last().copied().unwrap_or(-7.0),
        ];
        let k = [0, 1, 200].iter().position(|&v| v == n).unwrap_or(2);
        let values = ["values (empty x)", "values (one x)", "values"];
        let firsts = ["ends (empty x)", "ends (one x)", "ends"];
        check(&mut out, values[k], &d.to_host()?, &want, 0.0)?;
        check(&mut out, firsts[k], &ends.to_host()?, &ends_want, 0.0)?;
    }
    Ok(out)
}
