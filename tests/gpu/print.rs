//! `println!` on the GPU prints what the simulator prints: a kernel prints bools,
//! integers of every type (decimal and hex) and floats of both types (`{}`, `{:.N}`,
//! `{:e}`) for fresh random values and the special ones (NaN of both signs, infinities,
//! signed zeros, subnormals, extremes), run in a child process per backend; both
//! processes' output lines, sorted (their order across threads is not defined), must be
//! the same, and as many as the kernel prints.

use gpu_runtime::prelude::*;
use rand::Rng;

use crate::cases::CaseResult;

/// The child mode that runs [`print_values`] on the backend named by the next argument.
pub const CHILD_PRINT: &str = "--child-print";

#[gpu_kernel]
pub fn print_values(f: &[f32], d: &[f64], i: &[i64], u: &[u64], w: &[i32]) {
    let t = grid_1d();
    if t < f.len() && t < d.len() && t < i.len() && t < u.len() && t < w.len() {
        let (x, y) = (f[t], d[t]);
        let small = w[t];
        let positive = x > 0.0;
        println!(
            "{t} f32 {} {:.4} {:e} | f64 {} {:.2} {:e}",
            x, x, x, y, y, y
        );
        println!(
            "{t} ints {} {:x} {:X} | {} {:x} | {} {:X} | {positive} 100%",
            small, small, small, i[t], i[t], u[t], u[t]
        );
    }
}

/// The inputs of one run, one vector per printed type.
type Inputs = (Vec<f32>, Vec<f64>, Vec<i64>, Vec<u64>, Vec<i32>);

/// The inputs for `seed`: specials first, then random values.
fn inputs(seed: u64) -> Inputs {
    let mut r = crate::cases::support::rng(seed);
    let mut f = vec![
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::MIN_POSITIVE / 8.0,
        f32::MAX,
        0.1,
        1.0,
    ];
    let mut d = vec![
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        f64::MIN_POSITIVE / 1024.0,
        f64::MAX,
        0.1,
        123456789.0,
    ];
    let mut i = vec![i64::MIN, i64::MAX, -1, 0, 1, -42, 7, 1 << 40, -(1 << 50), 3];
    let mut u = vec![u64::MAX, 0, 1, 1 << 63, 255, 4096, 10, 11, 12, 13];
    let mut w = vec![i32::MIN, i32::MAX, -1, 0, 1, -7, 100, -100, 65535, -65536];
    for _ in 0..246 {
        f.push(f32::from_bits(r.random()));
        d.push(if r.random() {
            f64::from_bits(r.random())
        } else {
            r.random_range(-1e6..1e6)
        });
        i.push(r.random());
        u.push(r.random());
        w.push(r.random());
    }
    (f, d, i, u, w)
}

/// In the child: print on the backend `backend` (`cuda` or `sim`).
pub fn child(backend: &str, seed: u64) -> CaseResult<String> {
    let dev = if backend == "cuda" {
        Device::cuda(0)?
    } else {
        Device::simulator()
    };
    let (f, d, i, u, w) = inputs(seed);
    let n = f.len();
    let (f, d) = (dev.to_device(&f)?, dev.to_device(&d)?);
    let (i, u, w) = (dev.to_device(&i)?, dev.to_device(&u)?, dev.to_device(&w)?);
    launch!(print_values[n.div_ceil(64), 64](&f, &d, &i, &u, &w))?;
    dev.synchronize()?;
    Ok(format!("{n} threads"))
}

/// Runs the child on both backends and compares their lines.
pub fn run(seed: u64) -> CaseResult<String> {
    let exe = std::env::current_exe()?;
    let lines = |backend: &str| -> CaseResult<Vec<String>> {
        let out = std::process::Command::new(&exe)
            .args([CHILD_PRINT, backend])
            .env("GPU_SUITE_SEED", seed.to_string())
            .output()?;
        let text = String::from_utf8(out.stdout)?;
        if !out.status.success() {
            return Err(format!(
                "{backend} child failed: {}",
                text.lines().last().unwrap_or("")
            )
            .into());
        }
        let mut v: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with("ok: "))
            .map(str::to_owned)
            .collect();
        v.sort();
        Ok(v)
    };
    let (gpu, sim) = (lines("cuda")?, lines("sim")?);
    let want = 2 * inputs(seed).0.len();
    if gpu.len() != want || sim.len() != want {
        return Err(format!(
            "{} GPU lines and {} simulator lines, want {want}",
            gpu.len(),
            sim.len()
        )
        .into());
    }
    if let Some((g, s)) = gpu.iter().zip(&sim).find(|(g, s)| g != s) {
        return Err(format!("GPU printed `{g}`, the simulator `{s}`").into());
    }
    Ok(format!(
        "{want} lines, the same text on the GPU and the simulator"
    ))
}
