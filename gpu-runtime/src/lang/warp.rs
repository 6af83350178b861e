//! Warp-level functions of the kernel language: lane queries, shuffles and votes
//! (CUDA's `__shfl_sync` family, `__ballot_sync`, ...; Numba's `cuda.shfl_*_sync`).
//!
//! `mask` names the lanes taking part, as in CUDA; every lane it names must call the
//! function. In the simulator the running lanes a call's mask names meet and read each
//! other's values, so results match the GPU's; a lane that reads from a lane outside the
//! group gets its own value back (undefined in CUDA).

use crate::backend::sim::position::position;
use crate::backend::sim::{with_block, WarpExchange};
use crate::dtype::Word;

/// Threads in a warp: 32 on every NVIDIA GPU.
pub const WARP_SIZE: u32 = 32;

/// [`WARP_SIZE`] (`warpSize`).
pub fn warp_size() -> u32 {
    WARP_SIZE
}

fn linear_thread() -> usize {
    let p = position();
    ((p.thread_idx.z as usize * p.block_dim.y as usize) + p.thread_idx.y as usize)
        * p.block_dim.x as usize
        + p.thread_idx.x as usize
}

/// This thread's lane in its warp, 0 to 31 (`%laneid`).
pub fn lane_id() -> u32 {
    (linear_thread() % 32) as u32
}

/// This thread's warp in its block.
fn warp_index() -> usize {
    linear_thread() / 32
}

/// `f` of this thread's warp and lane.
fn in_warp<R>(f: impl FnOnce(&WarpExchange, usize) -> R) -> R {
    let (w, lane) = (warp_index(), lane_id() as usize);
    with_block(|b| {
        assert!(
            b.concurrent,
            "internal: a warp function in a kernel the simulator runs one thread at a time"
        );
        f(&b.warps[w], lane)
    })
}

/// Meet the other running lanes `mask` names and read the value each published.
fn exchange(mask: u32, value: u64) -> [Option<u64>; 32] {
    in_warp(|warp, lane| warp.exchange(lane, mask, value))
}

fn in_mask(mask: u32, lane: usize) -> bool {
    lane < 32 && mask & (1 << lane) != 0
}

fn shuffle_from<T: Word>(mask: u32, value: T, source: Option<usize>) -> T {
    let seen = exchange(mask, value.to_bits64());
    match source {
        Some(s) if in_mask(mask, s) => seen[s].map(T::from_bits64).unwrap_or(value),
        _ => value,
    }
}

/// The value of `value` in lane `src_lane` (`__shfl_sync`).
pub fn shfl_sync<T: Word>(mask: u32, value: T, src_lane: u32) -> T {
    shuffle_from(mask, value, Some((src_lane % 32) as usize))
}

/// The value of `value` in the lane `delta` below this one; lanes below `delta` keep
/// their own (`__shfl_up_sync`).
pub fn shfl_up_sync<T: Word>(mask: u32, value: T, delta: u32) -> T {
    let lane = lane_id() as usize;
    shuffle_from(mask, value, lane.checked_sub(delta as usize))
}

/// The value of `value` in the lane `delta` above this one; the top `delta` lanes keep
/// their own (`__shfl_down_sync`).
pub fn shfl_down_sync<T: Word>(mask: u32, value: T, delta: u32) -> T {
    let lane = lane_id() as usize + delta as usize;
    shuffle_from(mask, value, (lane < 32).then_some(lane))
}

/// The value of `value` in lane `lane_id() ^ lane_mask` (`__shfl_xor_sync`).
pub fn shfl_xor_sync<T: Word>(mask: u32, value: T, lane_mask: u32) -> T {
    let lane = lane_id() as usize ^ (lane_mask as usize & 31);
    shuffle_from(mask, value, Some(lane))
}

/// A bit per lane of `mask`: set where `predicate` holds (`__ballot_sync`).
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    let seen = exchange(mask, predicate as u64);
    (0..32)
        .filter(|&l| in_mask(mask, l) && seen[l] == Some(1))
        .fold(0u32, |acc, l| acc | (1 << l))
}

/// Whether `predicate` holds in any lane of `mask` (`__any_sync`).
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    ballot_sync(mask, predicate) != 0
}

/// Whether `predicate` holds in every lane of `mask` (`__all_sync`).
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    let seen = exchange(mask, predicate as u64);
    (0..32)
        .filter(|&l| in_mask(mask, l) && seen[l].is_some())
        .all(|l| seen[l] == Some(1))
}

/// Whether `value` is the same in every lane of `mask` (`__match_all_sync`'s predicate;
/// Numba's `cuda.eq_sync`).
pub fn eq_sync<T: Word>(mask: u32, value: T) -> bool {
    let seen = exchange(mask, value.to_bits64());
    let mut values = (0..32)
        .filter(|&l| in_mask(mask, l))
        .filter_map(|l| seen[l]);
    match values.next() {
        Some(first) => values.all(|v| v == first),
        None => true,
    }
}

/// The lanes of this warp that are executing this call (`__activemask()`). The simulator
/// meets every running lane of the warp here; in a branch some lanes skip, the lanes that
/// reach the call once the others wait elsewhere (or have finished).
pub fn active_mask() -> u32 {
    let seen = in_warp(|warp, lane| warp.active(lane));
    (0..32)
        .filter(|&l| seen[l].is_some())
        .fold(0u32, |acc, l| acc | (1 << l))
}

/// Wait for the lanes of `mask` (`__syncwarp`).
pub fn sync_warp(mask: u32) {
    exchange(mask, 0);
}
