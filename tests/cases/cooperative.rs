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
