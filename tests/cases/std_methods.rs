//! The standard numeric methods beyond the first list: integer bit counts, byte and bit
//! reversal and saturating arithmetic on every integer dtype; float sign, fraction, degree
//! and Euclidean methods and classification on every float dtype; and the path forms
//! (`f32::max(a, b)`, `cmp::min`, `f64::from`, `let y: f64 = x.into()`). Each against
//! Rust's own method on the host, bit for bit (a NaN is any NaN: its payload is left open).

use gpu_runtime::prelude::*;
use gpu_runtime::Dtype;
use rand::Rng;

use super::support::*;
use super::Outputs;

#[gpu_kernel]
pub fn int_bits<T: Int>(a: &[T], b: &[T], same: &mut [T], counts: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() && 5 * i + 4 < same.len() && 4 * i + 3 < counts.len() {
        same[5 * i] = a[i].saturating_add(b[i]);
        same[5 * i + 1] = a[i].saturating_sub(b[i]);
        same[5 * i + 2] = a[i].saturating_mul(b[i]);
        same[5 * i + 3] = a[i].swap_bytes();
        same[5 * i + 4] = b[i].reverse_bits();
        counts[4 * i] = a[i].count_ones();
        counts[4 * i + 1] = a[i].count_zeros();
        counts[4 * i + 2] = b[i].leading_zeros();
        counts[4 * i + 3] = b[i].trailing_zeros();
    }
}

/// Random integers with the values saturation and counting get wrong most easily.
fn int_inputs<T: Int + Dtype>(r: &mut rand::rngs::StdRng, n: usize) -> Vec<T>
where
    rand::distr::StandardUniform: rand::distr::Distribution<T>,
{
    let special = [
        T::zero(),
        T::one(),
        T::from_i32(-1),
        T::from_i32(2),
        T::from_i32(-128),
        T::from_i32(127),
    ];
    (0..n)
        .map(|k| match (k % 4, r.random_range(0..special.len())) {
            (0, s) => special[s],
            // Small values, whose products do not saturate.
            (1, _) => T::from_i32(r.random_range(-9..9)),
            _ => r.random(),
        })
        .collect()
}

fn check_int_bits<T: Int + Dtype + std::fmt::Debug>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
) -> CaseResult<()>
where
    rand::distr::StandardUniform: rand::distr::Distribution<T>,
{
    let len = r.random_range(500..1500);
    let (a, b) = (int_inputs::<T>(r, len), int_inputs::<T>(r, len));
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut same = poisoned(dev, 5 * len, T::from_i32(0x5A))?;
    let mut counts = poisoned(dev, 4 * len, 0xDEAD_u32)?;
    launch!(int_bits[blocks(len, 128), 128](&da, &db, &mut same, &mut counts))?;
    let (same, counts) = (same.to_host()?, counts.to_host()?);
    for i in 0..len {
        let want = [
            a[i].saturating_add(b[i]),
            a[i].saturating_sub(b[i]),
            a[i].saturating_mul(b[i]),
            a[i].swap_bytes(),
            b[i].reverse_bits(),
        ];
        let want_counts = [
            a[i].count_ones(),
            a[i].count_zeros(),
            b[i].leading_zeros(),
            b[i].trailing_zeros(),
        ];
        if same[5 * i..5 * i + 5] != want || counts[4 * i..4 * i + 4] != want_counts {
            return Err(format!(
                "{name}: a = {:?}, b = {:?}: got {:?} {:?}, want {want:?} {want_counts:?}",
                a[i],
                b[i],
                &same[5 * i..5 * i + 5],
                &counts[4 * i..4 * i + 4]
            )
            .into());
        }
    }
    out.push((
        name,
        same.iter()
            .map(|v| (v.to_bits64() & ((1 << 52) - 1)) as f64)
            .chain(counts.iter().map(|&c| c as f64))
            .collect(),
    ));
    Ok(())
}

#[gpu_kernel]
pub fn float_core<T: Float>(x: &[T], y: &[T], same: &mut [T], class: &mut [u32]) {
    let i = grid_1d();
    if i < x.len() && i < y.len() && 6 * i + 5 < same.len() && i < class.len() {
        same[6 * i] = x[i].signum();
        same[6 * i + 1] = x[i].fract();
        same[6 * i + 2] = x[i].to_radians();
        same[6 * i + 3] = y[i].to_degrees();
        same[6 * i + 4] = x[i].rem_euclid(y[i]);
        same[6 * i + 5] = x[i].div_euclid(y[i]);
        class[i] = u32::from(x[i].is_nan())
            | u32::from(x[i].is_finite()) << 1
            | u32::from(x[i].is_infinite()) << 2
            | u32::from(x[i].is_normal()) << 3
            | u32::from(x[i].is_subnormal()) << 4
            | u32::from(x[i].is_sign_positive()) << 5
            | u32::from(x[i].is_sign_negative()) << 6;
    }
}

/// The host's flags of `x`, as the kernel packs them.
fn class_bits<T: Float>(x: T) -> u32 {
    let flags = [
        x.is_nan(),
        x.is_finite(),
        x.is_infinite(),
        x.is_normal(),
        x.is_subnormal(),
        x.is_sign_positive(),
        x.is_sign_negative(),
    ];
    flags
        .iter()
        .enumerate()
        .fold(0, |acc, (k, &f)| acc | (u32::from(f) << k))
}

/// Random floats with zeros of both signs, infinities, NaN, subnormals of each format and
/// values near whole numbers.
fn float_inputs<T: Float>(r: &mut rand::rngs::StdRng, n: usize) -> Vec<T> {
    let special = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-40,
        -1e-310,
        6e-6,
        -1e-39,
        1.0,
        -1.0,
        2.5,
        -2.5,
        180.0,
        1e30,
    ];
    (0..n)
        .map(|k| match k % 3 {
            0 => T::from_f64(special[r.random_range(0..special.len())]),
            1 => T::from_f64(r.random_range(-8.0..8.0)),
            _ => T::from_f64(r.random_range(-1e4..1e4)),
        })
        .collect()
}

/// Equal bits, or both NaN.
fn same_float<T: Float + Dtype>(a: T, b: T) -> bool {
    a.to_bits64() == b.to_bits64() || (a.is_nan() && b.is_nan())
}

fn check_float_core<T: Float + Dtype + std::fmt::Debug>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
) -> CaseResult<()> {
    let len = r.random_range(500..1500);
    let (x, y) = (float_inputs::<T>(r, len), float_inputs::<T>(r, len));
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut same = poisoned(dev, 6 * len, T::from_f64(-7.25))?;
    let mut class = poisoned(dev, len, 0xDEAD_u32)?;
    launch!(float_core[blocks(len, 128), 128](&dx, &dy, &mut same, &mut class))?;
    let (same, class) = (same.to_host()?, class.to_host()?);
    for i in 0..len {
        let want = [
            x[i].signum(),
            x[i].fract(),
            x[i].to_radians(),
            y[i].to_degrees(),
            x[i].rem_euclid(y[i]),
            x[i].div_euclid(y[i]),
        ];
        let got = &same[6 * i..6 * i + 6];
        let equal = got.iter().zip(&want).all(|(&g, &w)| same_float(g, w));
        if !equal || class[i] != class_bits(x[i]) {
            return Err(format!(
                "{name}: x = {:?}, y = {:?}: got {got:?} class {:#b}, want {want:?} class {:#b} \
                 (signum fract to_radians to_degrees(y) rem_euclid div_euclid; nan finite \
                 infinite normal subnormal +sign -sign)",
                x[i],
                y[i],
                class[i],
                class_bits(x[i])
            )
            .into());
        }
    }
    // NaNs as one value (their payload is left open), for the GPU-simulator comparison.
    out.push((
        name,
        same.iter()
            .map(|&v| if v.is_nan() { f64::MAX } else { v.to_f64() })
            .chain(class.iter().map(|&c| c as f64))
            .collect(),
    ));
    Ok(())
}

#[gpu_kernel]
pub fn path_forms<T: Float>(x: &[f32], k: &[i32], h: &[u8], t: &[T], out: &mut [f64]) {
    let i = grid_1d();
    if i < x.len() && i < k.len() && i < h.len() && i < t.len() && 8 * i + 7 < out.len() {
        let j = (i % 7) as i32 - 3;
        out[8 * i] = f64::from(f32::max(x[i], 0.5));
        out[8 * i + 1] = f64::from(f32::sqrt(f32::abs(x[i])));
        out[8 * i + 2] = f64::from(i32::count_ones(k[i]));
        out[8 * i + 3] = f64::from(std::cmp::min(k[i], j));
        out[8 * i + 4] = f64::from(core::cmp::max(k[i], j));
        let via_into: f64 = x[i].into();
        let wide: i64 = k[i].into();
        out[8 * i + 5] = via_into + wide as f64;
        out[8 * i + 6] = f64::from(u32::from(h[i]) + 1) + f64::from(h[i] > 100);
        out[8 * i + 7] = T::abs(t[i]).to_f64();
    }
}

fn check_path_forms(dev: &Device, r: &mut rand::rngs::StdRng, out: &mut Outputs) -> CaseResult<()> {
    let len = r.random_range(300..900);
    let x = uniform_f32(r, len, -100.0, 100.0);
    let k: Vec<i32> = (0..len).map(|_| r.random()).collect();
    let h: Vec<u8> = (0..len).map(|_| r.random()).collect();
    let t = uniform_f64(r, len, -5.0, 5.0);
    let (dx, dk, dh, dt) = (
        dev.to_device(&x)?,
        dev.to_device(&k)?,
        dev.to_device(&h)?,
        dev.to_device(&t)?,
    );
    let mut dout = poisoned(dev, 8 * len, f64::NAN)?;
    launch!(path_forms[blocks(len, 64), 64](&dx, &dk, &dh, &dt, &mut dout))?;
    let got = dout.to_host()?;
    for i in 0..len {
        let j = (i % 7) as i32 - 3;
        let want = [
            f64::from(x[i].max(0.5)),
            f64::from(x[i].abs().sqrt()),
            f64::from(k[i].count_ones()),
            f64::from(k[i].min(j)),
            f64::from(k[i].max(j)),
            f64::from(x[i]) + i64::from(k[i]) as f64,
            f64::from(u32::from(h[i]) + 1) + f64::from(h[i] > 100),
            t[i].abs(),
        ];
        if got[8 * i..8 * i + 8] != want {
            return Err(format!(
                "path forms at {i}: got {:?}, want {want:?}",
                &got[8 * i..8 * i + 8]
            )
            .into());
        }
    }
    out.push(("path forms", got));
    Ok(())
}

pub fn case_std_methods(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    macro_rules! each {
        ($check:ident: $($t:ident),*) => {
            $($check::<$t>(dev, &mut r, &mut out, stringify!($t))?;)*
        };
    }
    each!(check_int_bits: i8, u8, i16, u16, i32, u32, i64, u64);
    each!(check_float_core: f32, f64, f16, bf16);
    check_path_forms(dev, &mut r, &mut out)?;
    Ok(out)
}

#[gpu_kernel]
pub fn clamps<T: Float>(x: &[T], k: &[i32], lo: T, hi: T, out: &mut [T], outk: &mut [i32]) {
    let i = grid_1d();
    if i < x.len() && i < k.len() && i < out.len() && i < outk.len() {
        out[i] = x[i].clamp(lo, hi);
        outk[i] = k[i].clamp(-100, 100);
    }
}

fn check_clamps<T: Float + Dtype + std::fmt::Debug>(
    dev: &Device,
    r: &mut rand::rngs::StdRng,
    out: &mut Outputs,
    name: &'static str,
) -> CaseResult<()> {
    let len = r.random_range(300..900);
    let x = float_inputs::<T>(r, len);
    let k: Vec<i32> = (0..len).map(|_| r.random_range(-300..300)).collect();
    let (lo, hi) = (T::from_f64(-2.5), T::from_f64(7.0));
    let (dx, dk) = (dev.to_device(&x)?, dev.to_device(&k)?);
    let mut dout = poisoned(dev, len, T::from_f64(-7.25))?;
    let mut doutk = poisoned(dev, len, 0x5A5A_i32)?;
    launch!(clamps[blocks(len, 128), 128](&dx, &dk, lo, hi, &mut dout, &mut doutk))?;
    let (got, gotk) = (dout.to_host()?, doutk.to_host()?);
    for i in 0..len {
        let (want, wantk) = (x[i].clamp(lo, hi), k[i].clamp(-100, 100));
        if !same_float(got[i], want) || gotk[i] != wantk {
            return Err(format!(
                "{name} clamp: x = {:?}, k = {}: got {:?} {}, want {want:?} {wantk}",
                x[i], k[i], got[i], gotk[i]
            )
            .into());
        }
    }
    // Bounds the wrong way round, or NaN: Rust's panic, naming the bounds.
    for (lo, hi) in [(3.0, 1.0), (f64::NAN, 1.0)] {
        let (lo, hi) = (T::from_f64(lo), T::from_f64(hi));
        // A GPU reports a kernel's fault at the next synchronisation.
        let err = launch!(clamps[blocks(len, 128), 128](&dx, &dk, lo, hi, &mut dout, &mut doutk))
            .and_then(|()| dev.synchronize());
        let message = match (dev.backend(), err) {
            (gpu_runtime::Backend::Cuda, Err(e @ GpuError::Panic { .. })) => e.to_string(),
            (gpu_runtime::Backend::Simulator, Err(e @ GpuError::SimulatorPanic { .. })) => {
                e.to_string()
            }
            (_, other) => return Err(format!("{name} clamp({lo:?}, {hi:?}): got {other:?}").into()),
        };
        if !message.contains("min > max, or either was NaN") {
            return Err(format!("{name} clamp({lo:?}, {hi:?}): the message is {message}").into());
        }
    }
    out.push((
        name,
        got.iter()
            .map(|&v| if v.is_nan() { f64::MAX } else { v.to_f64() })
            .chain(gotk.iter().map(|&v| v as f64))
            .collect(),
    ));
    Ok(())
}

pub fn case_clamp(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    check_clamps::<f32>(dev, &mut r, &mut out, "f32")?;
    check_clamps::<f64>(dev, &mut r, &mut out, "f64")?;
    check_clamps::<f16>(dev, &mut r, &mut out, "f16")?;
    Ok(out)
}
