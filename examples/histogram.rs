//! A 256-bin histogram of bytes: each block counts in shared memory with atomics, then adds
//! its counts to the global histogram with atomics. Counts must be exact.

use gpu_runtime::prelude::*;

#[gpu_kernel]
pub fn histogram(data: &[u32], bins: &mut [u32]) {
    let mut local = shared_array::<u32, 256>();
    let tid = thread_idx().x as usize;
    local[tid] = 0;
    sync_threads();
    let mut i = grid_1d();
    while i < data.len() {
        atomic_add(local, (data[i] & 255) as usize, 1);
        i += gridsize_1d();
    }
    sync_threads();
    if local[tid] > 0 {
        atomic_add(bins, tid, local[tid]);
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
    let n = 2_000_000usize;
    // A skewed distribution, so collisions on the same bin are frequent.
    let data: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(i).wrapping_mul(2654435761) >> 7) as u32 % 97 * (i as u32 % 3))
        .collect();
    let d = dev.to_device(&data)?;
    let mut bins = dev.zeros::<u32>(256)?;
    launch!(histogram[64, 256](&d, &mut bins))?;
    let got = bins.to_host()?;
    let mut want = vec![0u32; 256];
    for v in &data {
        want[(v & 255) as usize] += 1;
    }
    if got != want {
        eprintln!("histogram counts differ from the host's");
        std::process::exit(1);
    }
    println!(
        "all 256 bins exact over {n} values (backend: {}, {})",
        dev.backend(),
        dev.name()
    );
    Ok(())
}
