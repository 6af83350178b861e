//! Warp functions: shuffles, votes, match, lane ids and masks.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

#[gpu_kernel]
pub fn warp_ops(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    let lane = lane_id();
    let v = x[i];
    let o = i * 9;
    out[o] = shfl_sync(0xffff_ffff, v, (lane + 3) % 32);
    out[o + 1] = shfl_up_sync(0xffff_ffff, v, 2);
    out[o + 2] = shfl_down_sync(0xffff_ffff, v, 5);
    out[o + 3] = shfl_xor_sync(0xffff_ffff, v, 7);
    out[o + 4] = ballot_sync(0xffff_ffff, v > 0) as i32;
    out[o + 5] = any_sync(0xffff_ffff, v > 90) as i32 + 2 * all_sync(0xffff_ffff, v > -100) as i32;
    out[o + 6] = eq_sync(0xffff_ffff, v / 1000) as i32;
    out[o + 7] = lane as i32 + 100 * warp_size() as i32;
    out[o + 8] = active_mask() as i32;
}

/// Half-warp sums with a partial mask, then a block barrier: lanes 16-31 never shuffle.
#[gpu_kernel]
pub fn half_warp_sum(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    let lane = lane_id();
    let mut v = x[i];
    if lane < 16 {
        let mut offset = 8u32;
        while offset > 0 {
            v += shfl_xor_sync(0xffff, v, offset);
            offset /= 2;
        }
    }
    sync_threads();
    out[i] = v;
}

pub fn case_warp(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = 128; // 4 warps in blocks of 64
    let x: Vec<i32> = (0..n).map(|_| r.random_range(-99..100)).collect();
    let dx = dev.to_device(&x)?;
    let mut d = poisoned(dev, n * 9, i32::MIN)?;
    launch!(warp_ops[2, 64](&dx, &mut d))?;
    let mut want = Vec::new();
    for i in 0..n {
        let base = i - i % 32;
        let lane = i % 32;
        let w = &x[base..base + 32];
        let ballot = (0..32)
            .filter(|&l| w[l] > 0)
            .fold(0u32, |a, l| a | (1 << l)) as i32;
        let any = w.iter().any(|&v| v > 90) as i32;
        let all = w.iter().all(|&v| v > -100) as i32;
        want.extend([
            w[(lane + 3) % 32],
            if lane >= 2 { w[lane - 2] } else { w[lane] },
            if lane + 5 < 32 { w[lane + 5] } else { w[lane] },
            w[lane ^ 7],
            ballot,
            any + 2 * all,
            1, // every value / 1000 is 0
            lane as i32 + 3200,
            -1, // all 32 lanes active
        ]);
    }
    check(&mut out, "warp", &d.to_host()?, &want, 0.0)?;
    let mut h = poisoned(dev, n, i32::MIN)?;
    launch!(half_warp_sum[2, 64](&dx, &mut h))?;
    let want: Vec<i32> = (0..n)
        .map(|i| {
            let base = i - i % 32;
            if i % 32 < 16 {
                x[base..base + 16].iter().sum()
            } else {
                x[i]
            }
        })
        .collect();
    check(&mut out, "half-warp", &h.to_host()?, &want, 0.0)?;
    Ok(out)
}
