//! A CUDA graph: 1-D heat diffusion, 64 small steps recorded once with `dev.capture` and
//! replayed 50 times with one call each, against the same 3,200 steps launched one by one.
//! The steps alternate between two arrays, so each depends on the one before. Between
//! replays the host reads the temperature, as a solver checking convergence would.
//!
//! Checks every value against the host, bit for bit (see `step_on_host`), and prints the
//! time of both ways. On the simulator the graph runs the recorded kernels in order, with
//! the same results.

use std::time::Instant;

use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// One explicit step of `u' = u''` with fixed ends: `next[i] = (cur[i-1] + 2 cur[i] +
/// cur[i+1]) / 4` inside, the ends copied.
#[gpu_kernel]
pub fn diffuse(cur: &[f32], next: &mut [f32]) {
    let i = grid_1d();
    let n = cur.len();
    if i < n {
        if i == 0 || i == n - 1 {
            next[i] = cur[i];
        } else {
            next[i] = (cur[i - 1] + 2.0f32 * cur[i] + cur[i + 1]) * 0.25f32;
        }
    }
}

/// The host's step, in the kernel's order of operations (`2.0 * c` and `* 0.25` are
/// exact, so a fused multiply-add on the GPU rounds as these operations do).
fn step_on_host(cur: &[f32], next: &mut [f32]) {
    let n = cur.len();
    next[0] = cur[0];
    next[n - 1] = cur[n - 1];
    for i in 1..n - 1 {
        next[i] = (cur[i - 1] + 2.0f32 * cur[i] + cur[i + 1]) * 0.25f32;
    }
}

const STEPS: usize = 64;
const REPLAYS: usize = 50;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let dev = Device::gpu_or_simulator()?;
    println!("running on {}", dev.describe());
    let on_gpu = dev.backend() == Backend::Cuda;
    let n: usize = if on_gpu { 1 << 16 } else { 256 };
    // A hot spot of 16 points in the middle, cold elsewhere.
    let start: Vec<f32> = (0..n)
        .map(|i| if i.abs_diff(n / 2) < 8 { 100.0 } else { 0.0 })
        .collect();
    let (mut a, mut b) = (dev.to_device(&start)?, dev.zeros::<f32>(n)?);
    let stream = dev.new_stream()?;
    let blocks = n.div_ceil(256);

    // Recorded once: 64 steps, a -> b -> a -> ... (an even count ends in `a`).
    let graph = dev.capture(|s| {
        for _ in 0..STEPS / 2 {
            launch!(diffuse[blocks, 256, s](&a, &mut b))?;
            launch!(diffuse[blocks, 256, s](&b, &mut a))?;
        }
        Ok(())
    })?;
    let t = Instant::now();
    let mut middle = Vec::new();
    for _ in 0..REPLAYS {
        graph.launch(&stream)?;
        middle.push(a.to_host()?[n / 2]);
    }
    let replayed_ms = t.elapsed().as_secs_f64() * 1e3;
    let by_graph = a.to_host()?;

    // The same steps one launch at a time, from the same start.
    a.copy_from_host(&start)?;
    let t = Instant::now();
    for _ in 0..REPLAYS {
        for _ in 0..STEPS / 2 {
            launch!(diffuse[blocks, 256, &stream](&a, &mut b))?;
            launch!(diffuse[blocks, 256, &stream](&b, &mut a))?;
        }
        a.to_host()?;
    }
    let one_by_one_ms = t.elapsed().as_secs_f64() * 1e3;
    let by_launches = a.to_host()?;

    let (mut want, mut spare) = (start.clone(), vec![0.0f32; n]);
    for _ in 0..REPLAYS * STEPS / 2 {
        step_on_host(&want, &mut spare);
        step_on_host(&spare, &mut want);
    }
    for (name, got) in [("graph", &by_graph), ("one by one", &by_launches)] {
        if let Some(i) = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
            return Err(format!("{name}: u[{i}] = {}, the host has {}", got[i], want[i]).into());
        }
    }
    if middle.windows(2).any(|w| w[1] > w[0]) {
        return Err("the middle warmed up: diffusion runs the wrong way".into());
    }
    println!(
        "{} steps on {n} points, every value equal to the host's; the middle cooled from \
         100 to {:.2}",
        REPLAYS * STEPS,
        middle[REPLAYS - 1]
    );
    println!(
        "{REPLAYS} replays of a {}-launch graph: {replayed_ms:.2} ms; the same launches one \
         by one: {one_by_one_ms:.2} ms",
        graph.len()
    );
    Ok(())
}
