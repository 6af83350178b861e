//! Data-parallel least squares: the rows of `X` and `y` are split over the ranks; each
//! step, every rank computes the gradient of its rows with a kernel, an `all_reduce` adds
//! the gradients, and every rank takes the same step. The weights converge to the host's
//! solution of the normal equations `(X^T X) w = X^T y`.
//!
//! Runs as one process over every GPU (one thread per rank), as one process per rank
//! under `scripts/launch-ranks N -- target/release/examples/data_parallel`, or over four
//! simulated devices where there is no GPU.

use gpu_runtime::collective::{Communicator, ReduceOp};
use gpu_runtime::prelude::*;
use gpu_runtime::Backend;

/// `g[j] = sum_i x[i, j] * (x[i, :] . w - y[i])`: this rank's part of the gradient.
#[gpu_kernel]
pub fn partial_gradient(x: &DeviceArray2<f64>, y: &[f64], w: &[f64], g: &mut [f64]) {
    let j = grid_1d();
    if j < g.len() && j < x.cols() {
        let mut acc = 0.0f64;
        for i in 0..x.rows() {
            let mut predicted = 0.0f64;
            for k in 0..x.cols() {
                predicted += x[(i, k)] * w[k];
            }
            acc += x[(i, j)] * (predicted - y[i]);
        }
        g[j] = acc;
    }
}

/// `w -= rate * g`.
#[gpu_kernel]
pub fn descend(w: &mut [f64], g: &[f64], rate: f64) {
    let j = grid_1d();
    if j < w.len() {
        w[j] -= rate * g[j];
    }
}

const FEATURES: usize = 8;
const STEPS: usize = 150;

/// The rows of the data set: 2^16 on GPUs, 2^10 simulated.
fn rows(backend: Backend) -> usize {
    match backend {
        Backend::Cuda => 1 << 16,
        Backend::Simulator => 1 << 10,
    }
}

/// Row `i` of the data: features in [-1, 1) and a target from fixed weights plus noise,
/// the same for any number of ranks.
fn row(i: usize) -> ([f64; FEATURES], f64) {
    let mut state = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = || {
        state ^= state >> 33;
        state = state.wrapping_mul(0xff51_afd7_ed55_8ccd);
        state ^= state >> 29;
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let mut x = [0.0; FEATURES];
    for v in &mut x {
        *v = next();
    }
    let truth = [0.5, -1.25, 2.0, 0.0, 3.5, -0.75, 1.0, -2.5];
    let y = x.iter().zip(truth).map(|(a, b)| a * b).sum::<f64>() + 0.1 * next();
    (x, y)
}

/// The rows of `rank` of `world`, of `total`.
fn rows_of(total: usize, rank: usize, world: usize) -> std::ops::Range<usize> {
    let per = total / world;
    let extra = total % world;
    let start = rank * per + rank.min(extra);
    start..start + per + usize::from(rank < extra)
}

fn rank_main(comm: &Communicator) -> Result<Vec<f64>, GpuError> {
    let dev = comm.device();
    let total = rows(dev.backend());
    let mine = rows_of(total, comm.rank(), comm.world_size());
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for i in mine.clone() {
        let (x, y) = row(i);
        xs.extend_from_slice(&x);
        ys.push(y);
    }
    let x = dev.to_device_2d(&xs, (mine.len(), FEATURES))?;
    let y = dev.to_device(&ys)?;
    let mut w = dev.zeros::<f64>(FEATURES)?;
    let mut g = dev.zeros::<f64>(FEATURES)?;
    let rate = 1.0 / total as f64;
    for _ in 0..STEPS {
        launch!(partial_gradient[1, 32](&x, &y, &w, &mut g))?;
        comm.all_reduce_in_place(&mut g, ReduceOp::Sum)?;
        launch!(descend[1, 32](&mut w, &g, rate))?;
    }
    w.to_host()
}

/// The least-squares weights from the normal equations, by Gaussian elimination.
fn host_solution(total: usize) -> Vec<f64> {
    let mut a = [[0.0f64; FEATURES + 1]; FEATURES];
    for i in 0..total {
        let (x, y) = row(i);
        for r in 0..FEATURES {
            for c in 0..FEATURES {
                a[r][c] += x[r] * x[c];
            }
            a[r][FEATURES] += x[r] * y;
        }
    }
    for p in 0..FEATURES {
        let pivot = (p..FEATURES)
            .max_by(|&i, &j| a[i][p].abs().total_cmp(&a[j][p].abs()))
            .unwrap_or(p);
        a.swap(p, pivot);
        let pivot_row = a[p];
        for (r, row) in a.iter_mut().enumerate() {
            if r != p {
                let f = row[p] / pivot_row[p];
                for (v, pv) in row.iter_mut().zip(&pivot_row).skip(p) {
                    *v -= f * pv;
                }
            }
        }
    }
    (0..FEATURES).map(|r| a[r][FEATURES] / a[r][r]).collect()
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
    let (weights, how, backend) = if std::env::var_os("RANK").is_some() {
        let comm = Communicator::from_env()?;
        let w = rank_main(&comm)?;
        if comm.rank() != 0 {
            return Ok(());
        }
        let how = format!("{} processes, one rank each", comm.world_size());
        (vec![w], how, comm.device().backend())
    } else {
        let mut devices = Device::all()?;
        let how = if devices.is_empty() {
            devices = Device::simulators(4)?;
            "4 simulated devices (no GPU), one thread each".to_owned()
        } else {
            format!("{} GPU(s) of this process, one thread each", devices.len())
        };
        let comms = Communicator::for_devices(&devices)?;
        let weights = std::thread::scope(|s| {
            let ranks: Vec<_> = comms.iter().map(|c| s.spawn(|| rank_main(c))).collect();
            ranks
                .into_iter()
                .map(|h| h.join().expect("a rank panicked"))
                .collect::<Result<Vec<_>, GpuError>>()
        })?;
        (weights, how, devices[0].backend())
    };
    // An all_reduce gives every rank the same bits, so every rank took the same steps.
    if weights.iter().any(|w| w != &weights[0]) {
        eprintln!("the ranks' weights differ: {weights:?}");
        std::process::exit(1);
    }
    let want = host_solution(rows(backend));
    let off = weights[0]
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f64, f64::max);
    if off > 1e-9 {
        eprintln!(
            "weights {:?}\nhost    {want:?}\n{off:.1e} apart",
            weights[0]
        );
        std::process::exit(1);
    }
    println!("w = {:.4?}", weights[0]);
    println!("the host's least-squares solution to {off:.1e} after {STEPS} steps");
    println!("(ranks: {how}; backend: {backend})");
    Ok(())
}
