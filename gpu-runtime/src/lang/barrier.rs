//! Barriers and memory fences of the kernel language (CUDA's `__syncthreads` family and
//! `__threadfence`). On the GPU each is one instruction; these definitions are what the
//! simulator runs, where the threads of a block that synchronises are fibers, switched at
//! each wait.

use std::sync::atomic::{fence, Ordering};

use crate::backend::sim::{with_block, with_grid_barrier};

fn barrier(contribution: u64) -> (u64, usize) {
    with_block(|b| {
        assert!(
            b.concurrent,
            "internal: a barrier in a kernel the simulator runs one thread at a time"
        );
        b.barrier.wait(contribution)
    })
}

/// Wait until every thread of the block has reached this point, and make their earlier
/// writes to shared and global memory visible to each other (`__syncthreads()`).
pub fn sync_threads() {
    barrier(0);
}

/// [`sync_threads`], returning how many threads of the block passed `predicate = true`
/// (`__syncthreads_count`).
pub fn sync_threads_count(predicate: bool) -> i32 {
    barrier(predicate as u64).0 as i32
}

/// [`sync_threads`], returning whether `predicate` held for every thread
/// (`__syncthreads_and`).
pub fn sync_threads_and(predicate: bool) -> bool {
    let (sum, party) = barrier(predicate as u64);
    sum == party as u64
}

/// [`sync_threads`], returning whether `predicate` held for any thread
/// (`__syncthreads_or`).
pub fn sync_threads_or(predicate: bool) -> bool {
    barrier(predicate as u64).0 > 0
}

/// Order this thread's memory accesses as seen by every thread of the device
/// (`__threadfence()`).
pub fn threadfence() {
    fence(Ordering::SeqCst);
}

/// Order this thread's memory accesses as seen by the threads of its block
/// (`__threadfence_block()`).
pub fn threadfence_block() {
    fence(Ordering::SeqCst);
}

/// Order this thread's memory accesses as seen by the host and other devices
/// (`__threadfence_system()`).
pub fn threadfence_system() {
    fence(Ordering::SeqCst);
}

/// Wait until every thread of the grid has reached this point (cooperative groups'
/// `this_grid().sync()`; Numba's `cuda.cg.this_grid().sync()`). A kernel that calls it is
/// launched cooperatively: every block must be resident at once, and a grid too large for
/// that is refused before the launch.
pub fn sync_grid() {
    with_grid_barrier(|b| {
        b.wait(0);
    });
}
