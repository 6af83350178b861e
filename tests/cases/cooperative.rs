//! Cooperative launches: grid-wide barriers.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// Each thread reads what the mirror-image thread of the grid (in another block) wrote
/// before the grid barrier, twice, so the barrier is reused.
#[gpu_kernel]
pub fn grid_mirror(x: &[i32], scratch: &mut [i32], out: &mut [i32]) {
    let i = grid_1d();
    let n = gridsize_1d();
    scratch[i] = x[i] * 2;
    sync_grid();
    let first = scratch[n - 1 - i];
    sync_grid();
    scratch[i] = first + 1;
    sync_grid();
    out[i] = scratch[n - 1 - i];
}

pub fn case_cooperative(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (blocks_n, threads) = (8usize, 128usize);
    let n = blocks_n * threads;
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-1000..1000)).collect();
    let dx = dev.to_device(&x)?;
    let mut scratch = dev.zeros::<i32>(n)?;
    let mut d = poisoned(dev, n, i32::MIN)?;
    launch!(grid_mirror[blocks_n, threads](&dx, &mut scratch, &mut d))?;
    // out[i] = scratch2[n-1-i] = scratch1[i] + 1 = 2 * x[i] + 1
    let want: Vec<i32> = x.iter().map(|v| 2 * v + 1).collect();
    check(&mut out, "mirror", &d.to_host()?, &want, 0.0)?;
    // A grid that cannot be resident at once is refused before the launch (so the arrays
    // need not be large).
    let bx = dev.zeros::<i32>(4)?;
    let mut bs = dev.zeros::<i32>(4)?;
    let mut bo = dev.zeros::<i32>(4)?;
    match launch!(grid_mirror[1 << 20, 1024](&bx, &mut bs, &mut bo)) {
        Err(GpuError::InvalidLaunch { .. }) => {}
        other => return Err(format!("an oversized cooperative grid: {other:?}").into()),
    }
    Ok(out)
}

/// Numba's `sequential_rows` (its cooperative-groups example): each row is the previous
/// one reversed, plus one, computed by one thread per column with a grid barrier between
/// rows; the grid is bounded by `max_cooperative_blocks`.
#[gpu_kernel]
pub fn sequential_rows(m: &mut DeviceArray2<i32>) {
    let col = grid_1d();
    let (rows, cols) = m.shape();
    for row in 1..rows {
        let opposite = cols - col - 1;
        m[(row, col)] = m[(row - 1, opposite)] + 1;
        sync_grid();
    }
}

/// A persistent kernel: each thread strides over `x` twice, with a grid barrier between
/// the passes, and records how many blocks the grid had.
#[gpu_kernel]
pub fn mirror_strided(x: &[f32], scratch: &mut [f32], out: &mut [f32], blocks: &mut [u32]) {
    let n = x.len();
    let stride = gridsize_1d();
    let mut i = grid_1d();
    while i < n {
        scratch[i] = x[i] * 2.0;
        i += stride;
    }
    sync_grid();
    let mut j = grid_1d();
    while j < n {
        out[j] = scratch[n - 1 - j] + 1.0;
        j += stride;
    }
    if grid_1d() == 0 {
        blocks[0] = grid_dim().x;
    }
}

pub fn case_cooperative_limit(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let threads = 128usize;
    let most = sequential_rows::max_cooperative_blocks(dev, threads, 0)?;
    // The simulator's documented answer; on a GPU at least one block per multiprocessor
    // for a kernel this small, and fewer with most of a multiprocessor's shared memory.
    if dev.backend() == gpu_runtime::Backend::Simulator {
        if most != 32 {
            return Err(format!("the simulator holds 4096 / 128 = 32 blocks, not {most}").into());
        }
    } else {
        let sms = dev.multiprocessor_count().unwrap_or(0);
        let crowded = sequential_rows::max_cooperative_blocks(dev, threads, 100 * 1024)?;
        if most < sms || crowded >= most || crowded == 0 {
            return Err(format!(
                "{most} blocks resident ({crowded} with 100 KB shared) on {sms} multiprocessors"
            )
            .into());
        }
    }
    // Numba's example: 16 rows, as many columns as the grid has threads.
    let blocks_n = (most as usize).min(8);
    let (rows, cols) = (16usize, blocks_n * threads);
    let first: Vec<i32> = (0..cols).map(|_| r.random_range(-1000..1000)).collect();
    let mut host = vec![i32::MIN; rows * cols];
    host[..cols].copy_from_slice(&first);
    let mut m = dev.to_device_2d(&host, (rows, cols))?;
    launch!(sequential_rows[blocks_n, threads](&mut m))?;
    let mut want = host.clone();
    for row in 1..rows {
        for col in 0..cols {
            want[row * cols + col] = want[(row - 1) * cols + cols - col - 1] + 1;
        }
    }
    check(&mut out, "sequential_rows", &m.to_host()?, &want, 0.0)?;
    // One block more than the device holds is refused before the launch.
    match launch!(sequential_rows[most as usize + 1, threads](&mut m)) {
        Err(GpuError::InvalidLaunch { .. }) => {}
        other => return Err(format!("a grid of max_cooperative_blocks + 1: {other:?}").into()),
    }
    // `cooperative(block)` launches exactly that many blocks, over more elements than
    // threads (the same count on both backends, whose grids differ).
    let n = 1_000_003;
    let x = uniform_f32(&mut r, n, -100.0, 100.0);
    let dx = dev.to_device(&x)?;
    let mut scratch = dev.zeros::<f32>(n)?;
    let mut d = poisoned(dev, n, f32::NAN)?;
    let mut seen = dev.zeros::<u32>(1)?;
    let most_strided = mirror_strided::max_cooperative_blocks(dev, threads, 0)?;
    launch!(mirror_strided.cooperative(threads)(
        &dx,
        &mut scratch,
        &mut d,
        &mut seen
    ))?;
    let want: Vec<f32> = (0..n).map(|j| x[n - 1 - j] * 2.0 + 1.0).collect();
    check(&mut out, "mirror_strided", &d.to_host()?, &want, 0.0)?;
    // The grid is the device's own: compared here, not between backends.
    compare(
        "blocks",
        &f64s(&seen.to_host()?),
        &[f64::from(most_strided)],
        0.0,
    )?;
    if (most_strided as usize) * threads >= n {
        return Err(format!("{most_strided} blocks of {threads} cover all {n} elements").into());
    }
    // A block the kernel cannot have is explained, not sized.
    for (block, says) in [(2048usize, "exceeds the"), (0, "block.x is 0")] {
        let asked = mirror_strided::max_cooperative_blocks(dev, block, 0);
        let launched = launch!(mirror_strided.cooperative(block)(
            &dx,
            &mut scratch,
            &mut d,
            &mut seen
        ));
        for r in [asked.map(|_| ()), launched] {
            match r {
                Err(GpuError::InvalidLaunch { reason, .. }) if reason.contains(says) => {}
                other => return Err(format!("a block of {block}: {other:?}").into()),
            }
        }
    }
    Ok(out)
}
