//! Pi by Monte Carlo over several devices: each rank counts the points of its share of
//! one Philox4x32-10 stream that fall inside the quarter circle, and an `all_reduce` adds
//! the counts. The shares split one stream of counters, so the total is the same bits for
//! any number of ranks.
//!
//! Runs three ways, saying which:
//! - under `scripts/launch-ranks N -- target/release/examples/multi_gpu_pi` (torchrun's
//!   variables): one process per rank, meeting through rank 0's rendezvous;
//! - otherwise, one process over every GPU, one thread per rank;
//! - without a GPU, over four simulated devices.

use gpu_runtime::collective::{Communicator, ReduceOp};
use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// `counts[t]`: how many of the `per_thread` points from counter `first + t * per_thread`
/// on fall inside the quarter circle.
#[gpu_kernel]
pub fn count_inside(seed: u64, first: u64, per_thread: u32, counts: &mut [u64]) {
    let t = grid_1d();
    if t < counts.len() {
        let mut inside = 0u64;
        for i in 0..per_thread {
            let counter = first + t as u64 * per_thread as u64 + i as u64;
            let wx: u32 = philox4x32_10(counter, 0, seed, 0);
            let wy: u32 = philox4x32_10(counter, 0, seed, 1);
            let x = (wx >> 8) as f32 * (1.0 / 16_777_216.0);
            let y = (wy >> 8) as f32 * (1.0 / 16_777_216.0);
            if x * x + y * y <= 1.0 {
                inside += 1;
            }
        }
        counts[t] = inside;
    }
}

const SEED: u64 = 2026;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Points per thread, and threads over all ranks: 2^30 samples on GPUs, 2^18 simulated.
fn sizes(backend: Backend) -> (u32, usize) {
    match backend {
        Backend::Cuda => (1 << 10, 1 << 20),
        Backend::Simulator => (1 << 6, 1 << 12),
    }
}

/// This rank's share: its count added to every rank's by `all_reduce`.
fn rank_main(comm: &Communicator) -> Result<u64, GpuError> {
    let dev = comm.device();
    let (per_thread, threads) = sizes(dev.backend());
    let (rank, world) = (comm.rank(), comm.world_size());
    // Threads split evenly, the remainder to the first ranks.
    let mine = threads / world + usize::from(rank < threads % world);
    let before = rank * (threads / world) + rank.min(threads % world);
    let first = before as u64 * u64::from(per_thread);
    let mut counts = dev.zeros::<u64>(mine)?;
    launch!(count_inside[mine.div_ceil(256), 256](SEED, first, per_thread, &mut counts))?;
    let local: u64 = counts.to_host()?.iter().sum();
    let mut total = dev.to_device(&[local])?;
    comm.all_reduce_in_place(&mut total, ReduceOp::Sum)?;
    Ok(total.to_host()?[0])
}

pub fn run() -> Result<(), GpuError> {
    let (totals, how, backend) = if std::env::var_os("RANK").is_some() {
        let comm = Communicator::from_env()?;
        let total = rank_main(&comm)?;
        if comm.rank() != 0 {
            return Ok(());
        }
        let how = format!("{} processes, one rank each", comm.world_size());
        (vec![total], how, comm.device().backend())
    } else {
        let mut devices = Device::all()?;
        let how = if devices.is_empty() {
            devices = Device::simulators(4)?;
            "4 simulated devices (no GPU), one thread each".to_owned()
        } else {
            format!("{} GPU(s) of this process, one thread each", devices.len())
        };
        let comms = Communicator::for_devices(&devices)?;
        let totals = std::thread::scope(|s| {
            let ranks: Vec<_> = comms.iter().map(|c| s.spawn(|| rank_main(c))).collect();
            ranks
                .into_iter()
                .map(|h| h.join().expect("a rank panicked"))
                .collect::<Result<Vec<u64>, GpuError>>()
        })?;
        (totals, how, devices[0].backend())
    };
    if totals.iter().any(|&t| t != totals[0]) {
        eprintln!("the ranks disagree on the total: {totals:?}");
        std::process::exit(1);
    }
    let (per_thread, threads) = sizes(backend);
    let samples = threads as f64 * f64::from(per_thread);
    let pi = 4.0 * totals[0] as f64 / samples;
    let p = std::f64::consts::FRAC_PI_4;
    let bound = 5.0 * 4.0 * (p * (1.0 - p) / samples).sqrt();
    let off = (pi - std::f64::consts::PI).abs();
    if off > bound {
        eprintln!("pi = {pi}: {off:.2e} off, more than 5 sigma ({bound:.2e})");
        std::process::exit(1);
    }
    // On the simulator the count is checked against the host, point by point.
    if backend == Backend::Simulator {
        let mut host = 0u64;
        for counter in 0..samples as u64 {
            let wx = philox4x32_10(counter, 0, SEED, 0);
            let wy = philox4x32_10(counter, 0, SEED, 1);
            let x = (wx >> 8) as f32 * (1.0 / 16_777_216.0);
            let y = (wy >> 8) as f32 * (1.0 / 16_777_216.0);
            host += u64::from(x * x + y * y <= 1.0);
        }
        if host != totals[0] {
            eprintln!(
                "the ranks counted {} points inside, the host {host}",
                totals[0]
            );
            std::process::exit(1);
        }
    }
    println!("pi = {pi:.6} from {samples:.0} samples ({off:.1e} off, 5 sigma = {bound:.1e})");
    println!("(ranks: {how}; backend: {backend})");
    Ok(())
}
