//! The math sweep: every math function with a documented ulp bound (the contract table,
//! `gpu_contract::language::MATH`), over 2^20 inputs per type on the GPU, against a
//! reference computed in higher precision (`math_sweep.py`: x86's 64-bit-mantissa long
//! double through numpy, 11 bits more than f64). The host's Rust is measured the same way,
//! since it is not correctly rounded either.
//!
//! The inputs, the GPU's and the host's results go to a folder as raw little-endian
//! arrays with a manifest; the script prints one line per function and type and exits
//! non-zero if a GPU result is past its bound.

use std::io::Write;
use std::path::{Path, PathBuf};

use gpu_contract::language::{Accuracy, MathArgs, MATH};
use gpu_runtime::def::DtypeKind;
use gpu_runtime::prelude::*;
use gpu_runtime::Dtype;
use rand::{Rng, SeedableRng};

use crate::cases::CaseResult;

/// Inputs per function and type.
const N: usize = 1 << 20;

macro_rules! unary_kernels {
    ($($kernel:ident => $method:ident),* $(,)?) => {
        $(
            #[gpu_kernel]
            pub fn $kernel<T: Float>(x: &[T], y: &mut [T]) {
                let i = grid_1d();
                if i < x.len() {
                    y[i] = x[i].$method();
                }
            }
        )*
        /// The GPU kernel and the host function of each one-argument method.
        fn unary<T: Float + Dtype>(dev: &Device, name: &str, x: &[T]) -> CaseResult<Option<(Vec<T>, Vec<T>)>> {
            $(
                if name == stringify!($method) {
                    let dx = dev.to_device(x)?;
                    let mut dy = dev.to_device(&vec![T::from_f64(f64::NAN); x.len()])?;
                    launch!($kernel.forall(x.len())(&dx, &mut dy))?;
                    let host = x.iter().map(|v| v.$method()).collect();
                    return Ok(Some((dy.to_host()?, host)));
                }
            )*
            Ok(None)
        }
    };
}

macro_rules! binary_kernels {
    ($($kernel:ident => $method:ident),* $(,)?) => {
        $(
            #[gpu_kernel]
            pub fn $kernel<T: Float>(x: &[T], z: &[T], y: &mut [T]) {
                let i = grid_1d();
                if i < x.len() {
                    y[i] = x[i].$method(z[i]);
                }
            }
        )*
        /// The GPU kernel and the host function of each two-argument method.
        fn binary<T: Float + Dtype>(
            dev: &Device,
            name: &str,
            x: &[T],
            z: &[T],
        ) -> CaseResult<Option<(Vec<T>, Vec<T>)>> {
            $(
                if name == stringify!($method) {
                    let (dx, dz) = (dev.to_device(x)?, dev.to_device(z)?);
                    let mut dy = dev.to_device(&vec![T::from_f64(f64::NAN); x.len()])?;
                    launch!($kernel.forall(x.len())(&dx, &dz, &mut dy))?;
                    let host = x.iter().zip(z).map(|(a, b)| a.$method(*b)).collect();
                    return Ok(Some((dy.to_host()?, host)));
                }
            )*
            Ok(None)
        }
    };
}

unary_kernels! {
    sweep_cbrt => cbrt, sweep_exp => exp, sweep_exp2 => exp2, sweep_ln => ln,
    sweep_log2 => log2, sweep_log10 => log10, sweep_sin => sin, sweep_cos => cos,
    sweep_tan => tan, sweep_asin => asin, sweep_acos => acos, sweep_atan => atan,
    sweep_sinh => sinh, sweep_cosh => cosh, sweep_tanh => tanh,
    sweep_exp_m1 => exp_m1, sweep_ln_1p => ln_1p, sweep_asinh => asinh,
    sweep_acosh => acosh, sweep_atanh => atanh,
}

binary_kernels! {
    sweep_atan2 => atan2, sweep_powf => powf, sweep_hypot => hypot,
}

/// A finite value of `T` with uniformly random bits.
fn random_finite<T: Float + Dtype>(r: &mut rand::rngs::StdRng) -> T {
    loop {
        let v = T::from_bits64(r.random());
        if v.to_f64().is_finite() {
            return v;
        }
    }
}

/// Where each function's inputs mostly come from: the range its users pass (the rest are
/// finite floats with random bits, which cover every exponent).
fn typical(name: &str) -> (f64, f64) {
    match name {
        "exp" | "exp2" | "sinh" | "cosh" => (-90.0, 90.0),
        "tanh" => (-12.0, 12.0),
        // Near 0, where these are more accurate than `exp(x) - 1` and `ln(1 + x)`.
        "exp_m1" | "ln_1p" => (-0.5, 0.5),
        "asinh" => (-1e3, 1e3),
        "acosh" => (1.0, 1e3),
        "atanh" => (-1.0, 1.0),
        "ln" | "log2" | "log10" | "cbrt" => (0.0, 1e4),
        "asin" | "acos" => (-1.0, 1.0),
        "atan" | "atan2" | "hypot" => (-1e3, 1e3),
        "powf" => (0.0, 40.0),
        // sin, cos, tan: a few periods; the random bits reach the huge arguments.
        _ => (-100.0, 100.0),
    }
}

fn inputs<T: Float + Dtype>(r: &mut rand::rngs::StdRng, name: &str, second: bool) -> Vec<T> {
    let (lo, hi) = if second && name == "powf" {
        (-30.0, 30.0)
    } else {
        typical(name)
    };
    (0..N)
        .map(|k| {
            if k % 2 == 0 {
                T::from_f64(r.random_range(lo..hi))
            } else {
                random_finite::<T>(r)
            }
        })
        .collect()
}

fn write<T: Float>(dir: &Path, file: &str, v: &[T]) -> CaseResult<()> {
    let mut w = std::io::BufWriter::new(std::fs::File::create(dir.join(file))?);
    for x in v {
        w.write_all(&x.to_bits64().to_le_bytes()[..std::mem::size_of::<T>()])?;
    }
    Ok(w.flush()?)
}

fn sweep_type<T: Float + Dtype>(
    dev: &Device,
    seed: u64,
    dir: &Path,
    manifest: &mut String,
) -> CaseResult<usize> {
    let mut r = rand::rngs::StdRng::seed_from_u64(seed);
    let mut count = 0;
    for spec in MATH {
        let Accuracy::Ulp { f32, f64 } = spec.accuracy else {
            continue;
        };
        let bound = if T::KIND == DtypeKind::F32 { f32 } else { f64 };
        let x: Vec<T> = inputs(&mut r, spec.name, false);
        let (gpu, host, arity) = match spec.args {
            MathArgs::Unary => {
                let (g, h) = unary(dev, spec.name, &x)?
                    .ok_or_else(|| format!("the sweep has no kernel for `{}`", spec.name))?;
                (g, h, 1)
            }
            MathArgs::Binary => {
                let z: Vec<T> = inputs(&mut r, spec.name, true);
                let (g, h) = binary(dev, spec.name, &x, &z)?
                    .ok_or_else(|| format!("the sweep has no kernel for `{}`", spec.name))?;
                write(dir, &format!("{}_{}.z", spec.name, T::KIND.rust_name()), &z)?;
                (g, h, 2)
            }
            other => return Err(format!("`{}` takes {other:?}: not swept", spec.name).into()),
        };
        let stem = format!("{}_{}", spec.name, T::KIND.rust_name());
        write(dir, &format!("{stem}.x"), &x)?;
        write(dir, &format!("{stem}.gpu"), &gpu)?;
        write(dir, &format!("{stem}.host"), &host)?;
        manifest.push_str(&format!(
            "{} {} {arity} {bound} {stem}\n",
            spec.name,
            T::KIND.rust_name()
        ));
        count += 1;
    }
    Ok(count)
}

/// The script beside this binary (the GPU bundle puts it there), or `GPU_MATH_SWEEP_SCRIPT`.
fn script() -> CaseResult<PathBuf> {
    if let Ok(p) = std::env::var("GPU_MATH_SWEEP_SCRIPT") {
        return Ok(p.into());
    }
    let exe = std::env::current_exe()?;
    let p = exe.with_file_name("math_sweep.py");
    if p.exists() {
        Ok(p)
    } else {
        Err(format!(
            "{} not found: the sweep's reference is computed by tests/gpu/math_sweep.py \
             (scripts/gpu-bundle copies it beside the suite; or set GPU_MATH_SWEEP_SCRIPT)",
            p.display()
        )
        .into())
    }
}

/// Runs the sweep on `dev` and checks it with the script; prints the script's table.
pub fn run(dev: &Device, seed: u64) -> CaseResult<String> {
    let script = script()?;
    let dir = std::env::temp_dir().join(format!("gpu-math-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut manifest = String::new();
    let n = sweep_type::<f32>(dev, seed, &dir, &mut manifest)?
        + sweep_type::<f64>(dev, seed ^ 0x5eed, &dir, &mut manifest)?;
    std::fs::write(dir.join("manifest.txt"), &manifest)?;
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(&dir)
        .output()
        .map_err(|e| format!("could not run python3 {}: {e}", script.display()))?;
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    let last = stdout.lines().last().unwrap_or("(no output)").to_owned();
    if out.status.success() {
        Ok(format!("{n} function-type pairs x {N} inputs: {last}"))
    } else {
        Err(last.into())
    }
}
