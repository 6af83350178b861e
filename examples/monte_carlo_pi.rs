//! Pi by Monte Carlo, twice: Numba's documented `compute_pi` ported line by line (one
//! xoroshiro128+ state per thread, made on the host from a seed), and the same with the
//! counter-based Philox4x32-10, which needs no state at all. 2^30 samples on a GPU, 2^18
//! on the simulator.
//!
//! ```python
//! @cuda.jit
//! def compute_pi(rng_states, iterations, out):
//!     thread_id = cuda.grid(1)
//!     inside = 0
//!     for i in range(iterations):
//!         x = xoroshiro128p_uniform_float32(rng_states, thread_id)
//!         y = xoroshiro128p_uniform_float32(rng_states, thread_id)
//!         if x**2 + y**2 <= 1.0:
//!             inside += 1
//!     out[thread_id] = 4.0 * inside / iterations
//! ```

use gpu_runtime::prelude::*;
use gpu_runtime::random::create_xoroshiro128p_states;
use gpu_runtime::Backend;

/// Numba's `compute_pi`: each thread draws `iterations` points from its own state.
#[gpu_kernel]
pub fn compute_pi(rng_states: &mut [u64], iterations: u32, out: &mut [f32]) {
    let thread_id = grid_1d();
    let mut inside = 0u32;
    for _ in 0..iterations {
        let x: f32 = xoroshiro128p_uniform_f32(rng_states, thread_id);
        let y: f32 = xoroshiro128p_uniform_f32(rng_states, thread_id);
        if x * x + y * y <= 1.0 {
            inside += 1;
        }
    }
    out[thread_id] = 4.0 * inside as f32 / iterations as f32;
}

/// The same with Philox: point `i` of thread `t` is counter `t * iterations + i`, its two
/// coordinates two words of one Philox block.
#[gpu_kernel]
pub fn compute_pi_philox(seed: u64, iterations: u32, out: &mut [f32]) {
    let thread_id = grid_1d();
    let mut inside = 0u32;
    for i in 0..iterations {
        let counter = thread_id as u64 * iterations as u64 + i as u64;
        let wx: u32 = philox4x32_10(counter, 0, seed, 0);
        let wy: u32 = philox4x32_10(counter, 0, seed, 1);
        let x = (wx >> 8) as f32 * (1.0 / 16_777_216.0);
        let y = (wy >> 8) as f32 * (1.0 / 16_777_216.0);
        if x * x + y * y <= 1.0 {
            inside += 1;
        }
    }
    if thread_id < out.len() {
        out[thread_id] = 4.0 * inside as f32 / iterations as f32;
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let (threads, iterations) = match dev.backend() {
        Backend::Cuda => (1usize << 20, 1u32 << 10),
        Backend::Simulator => (1 << 12, 1 << 6),
    };
    let samples = threads as f64 * f64::from(iterations);
    // Five standard deviations of the estimate 4 k / n, k ~ Binomial(n, pi / 4).
    let p = std::f64::consts::FRAC_PI_4;
    let bound = 5.0 * 4.0 * (p * (1.0 - p) / samples).sqrt();
    let block = 256;

    let mut states = create_xoroshiro128p_states(&dev, threads, 1)?;
    let mut out = dev.zeros::<f32>(threads)?;
    launch!(compute_pi[threads / block, block](&mut states, iterations, &mut out))?;
    let xoroshiro = mean(&out.to_host()?);
    launch!(compute_pi_philox[threads / block, block](1, iterations, &mut out))?;
    let philox = mean(&out.to_host()?);

    for (name, pi) in [("xoroshiro128+", xoroshiro), ("Philox4x32-10", philox)] {
        let off = (pi - std::f64::consts::PI).abs();
        if off > bound {
            eprintln!("{name}: pi = {pi}, {off:.2e} off, more than 5 sigma ({bound:.2e})");
            std::process::exit(1);
        }
        println!(
            "{name}: pi = {pi:.6} from {samples:.0} samples ({off:.1e} off, 5 sigma = {bound:.1e})"
        );
    }
    println!("(backend: {}, {})", dev.backend(), dev.name());
    Ok(())
}

fn mean(v: &[f32]) -> f64 {
    v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64
}
