use gpu_runtime::prelude::*;

/// Shared memory, barriers, warp functions, atomics and local arrays compile and run on
/// the simulator.
#[gpu_kernel]
fn block_features(x: &[u32], counts: &mut [u32], out: &mut [u32]) {
    let mut seen = shared_array::<u32, 64>();
    let mut grid = shared_array_2d::<u32, 2, 32>();
    let t = thread_idx().x as usize;
    seen[t] = x[t];
    grid[(t / 32, t % 32)] = lane_id();
    sync_threads();
    let mut local = [0u32; 2];
    local[0] = seen[63 - t];
    local[1] = shfl_xor_sync(0xffff_ffff, local[0], 1);
    atomic_add(counts, (x[t] % 4) as usize, 1);
    let votes = sync_threads_count(x[t] % 2 == 0);
    out[t] = local[1] + grid[(t / 32, t % 32)] * 0 + votes as u32 * 0;
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let x: Vec<u32> = (0..64).collect();
    let dx = dev.to_device(&x)?;
    let mut counts = dev.zeros::<u32>(4)?;
    let mut out = dev.zeros::<u32>(64)?;
    launch!(block_features[1, 64](&dx, &mut counts, &mut out))?;
    assert_eq!(counts.to_host()?, vec![16, 16, 16, 16]);
    let out = out.to_host()?;
    assert!((0..64).all(|t| out[t] == 63 - (t as u32 ^ 1)), "{out:?}");
    Ok(())
}
