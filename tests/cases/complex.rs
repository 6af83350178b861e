//! Complex numbers: `Complex32` and `Complex64` as elements, scalars and locals; the
//! operators, constructors, fields and methods, against num-complex on the host.

use gpu_runtime::prelude::*;
use gpu_runtime::Complex;
use rand::Rng;

use super::support::*;

/// The exact operations, uncontracted: the GPU computes num-complex's bits.
#[gpu_kernel(fmad = false)]
pub fn complex_exact(
    x: &[Complex32],
    y: &[Complex32],
    t: f32,
    out: &mut [Complex32],
    same: &mut [u32],
) {
    let i = grid_1d();
    if i < x.len() {
        let (a, b) = (x[i], y[i]);
        let o = i * 9;
        out[o] = a + b;
        out[o + 1] = a - b * a;
        out[o + 2] = a / b;
        out[o + 3] = -a.conj();
        out[o + 4] = a.inv();
        out[o + 5] = b.scale(t).unscale(t + 1.0);
        out[o + 6] = Complex32::new(a.norm_sqr(), b.l1_norm());
        let mut z = Complex::new(a.im, b.re);
        z += a;
        z *= b;
        z -= Complex32::new(t, 0.0);
        z /= a;
        out[o + 7] = z;
        out[o + 8] = Complex32::new(a.re * b.im, (a - b).im);
        same[i] = (a == b) as u32 + 2 * (a != y[0]) as u32 + 4 * (b == x[5]) as u32;
    }
}

fn exact_reference(
    a: Complex32,
    b: Complex32,
    t: f32,
    y0: Complex32,
    x5: Complex32,
) -> ([Complex32; 9], u32) {
    let mut z = Complex::new(a.im, b.re);
    z += a;
    z *= b;
    z -= Complex32::new(t, 0.0);
    z /= a;
    (
        [
            a + b,
            a - b * a,
            a / b,
            -a.conj(),
            a.inv(),
            b.scale(t).unscale(t + 1.0),
            Complex32::new(a.norm_sqr(), b.l1_norm()),
            z,
            Complex32::new(a.re * b.im, (a - b).im),
        ],
        u32::from(a == b) + 2 * u32::from(a != y0) + 4 * u32::from(b == x5),
    )
}

/// The functions built on CUDA's `hypot`, `atan2`, `exp`, `sin`, `cos`, `ln`, `pow`, in
/// double precision, with a complex scalar parameter.
#[gpu_kernel]
pub fn complex_math(z: &[Complex64], w: Complex64, e: f64, out: &mut [Complex64]) {
    let i = grid_1d();
    if i < z.len() {
        let a = z[i];
        let o = i * 8;
        out[o] = Complex64::new(a.norm(), a.arg());
        out[o + 1] = a.exp();
        out[o + 2] = a.ln();
        out[o + 3] = a.sqrt();
        out[o + 4] = a.powf(e);
        out[o + 5] = a.powc(w);
        out[o + 6] = Complex64::cis(a.re) * w;
        out[o + 7] = Complex::from_polar(a.im, a.re);
    }
}

fn math_reference(a: Complex64, w: Complex64, e: f64) -> [Complex64; 8] {
    [
        Complex64::new(a.norm(), a.arg()),
        a.exp(),
        a.ln(),
        a.sqrt(),
        a.powf(e),
        a.powc(w),
        Complex64::cis(a.re) * w,
        Complex::from_polar(a.im, a.re),
    ]
}

/// The same in single precision: a scaled DFT term per element.
#[gpu_kernel]
pub fn complex_math_f32(z: &[Complex32], w: Complex32, out: &mut [Complex32]) {
    let i = grid_1d();
    if i < z.len() {
        let a = z[i];
        out[2 * i] = (a * w).exp() + a.sqrt() - a.ln();
        out[2 * i + 1] = Complex32::new(a.norm(), a.arg()) + a.powf(0.5);
    }
}

fn flat<F: Copy + Into<f64>>(v: &[Complex<F>]) -> Vec<f64> {
    v.iter().flat_map(|z| [z.re.into(), z.im.into()]).collect()
}

fn check_f64(
    out: &mut Outputs,
    name: &'static str,
    got: &[f64],
    want: &[f64],
    rel: f64,
) -> Result<(), String> {
    compare(name, got, want, rel)?;
    out.push((name, got.to_vec()));
    Ok(())
}

fn random_c32(r: &mut rand::rngs::StdRng) -> Complex32 {
    Complex32::new(r.random_range(-4.0..4.0), r.random_range(-4.0..4.0))
}

/// Random values with the corners of num-complex's branches among them: zeros of both
/// signs, infinities, NaN, the real and imaginary axes.
fn inputs_c64(r: &mut rand::rngs::StdRng, n: usize) -> Vec<Complex64> {
    let special = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let mut v: Vec<Complex64> = special
        .iter()
        .flat_map(|&re| special.iter().map(move |&im| Complex64::new(re, im)))
        .collect();
    while v.len() < n {
        let re = r.random_range(-3.0..3.0);
        let im = r.random_range(-3.0..3.0);
        v.push(match v.len() % 5 {
            0 => Complex64::new(re, 0.0),
            1 => Complex64::new(0.0, im),
            _ => Complex64::new(re, im),
        });
    }
    v
}

pub fn case_complex(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 777;
    let mut x: Vec<Complex32> = (0..n).map(|_| random_c32(&mut r)).collect();
    let y: Vec<Complex32> = (0..n).map(|_| random_c32(&mut r)).collect();
    x[0] = y[0];
    x[3] = y[3];
    x[5] = Complex32::new(f32::NAN, 1.0);
    let t = r.random_range(0.5f32..2.0);
    let (dx, dy) = (dev.to_device(&x)?, dev.to_device(&y)?);
    let mut d = poisoned(dev, n * 9, Complex32::new(f32::NAN, -7.0))?;
    let mut same = poisoned(dev, n, 99u32)?;
    launch!(complex_exact[blocks(n, 128), 128](&dx, &dy, t, &mut d, &mut same))?;
    let (mut want, mut want_same) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (w, s) = exact_reference(x[i], y[i], t, y[0], x[5]);
        want.extend(w);
        want_same.push(s);
    }
    check_f64(&mut out, "exact", &flat(&d.to_host()?), &flat(&want), 0.0)?;
    check(&mut out, "equality", &same.to_host()?, &want_same, 0.0)?;

    let z = inputs_c64(&mut r, 600);
    let w = Complex64::new(r.random_range(-1.5..1.5), r.random_range(-1.5..1.5));
    let e = r.random_range(-2.0..2.0);
    let dz = dev.to_device(&z)?;
    let mut m = poisoned(dev, z.len() * 8, Complex64::new(-7.0, f64::NAN))?;
    launch!(complex_math[blocks(z.len(), 128), 128](&dz, w, e, &mut m))?;
    let want: Vec<Complex64> = z.iter().flat_map(|&a| math_reference(a, w, e)).collect();
    // CUDA's and the host's real functions differ by a few ulp (the contract's bounds).
    check_f64(
        &mut out,
        "math_f64",
        &flat(&m.to_host()?),
        &flat(&want),
        1e-12,
    )?;

    let z32: Vec<Complex32> = (0..n)
        .map(|_| Complex32::new(r.random_range(0.1..3.0), r.random_range(-3.0..3.0)))
        .collect();
    let w32 = random_c32(&mut r).unscale(4.0);
    let dz32 = dev.to_device(&z32)?;
    let mut m32 = poisoned(dev, n * 2, Complex32::new(f32::NAN, f32::NAN))?;
    launch!(complex_math_f32[blocks(n, 128), 128](&dz32, w32, &mut m32))?;
    let want: Vec<Complex32> = z32
        .iter()
        .flat_map(|&a| {
            [
                (a * w32).exp() + a.sqrt() - a.ln(),
                Complex32::new(a.norm(), a.arg()) + a.powf(0.5),
            ]
        })
        .collect();
    check_f64(
        &mut out,
        "math_f32",
        &flat(&m32.to_host()?),
        &flat(&want),
        2e-5,
    )?;
    Ok(out)
}
