//! The kernel language's built-in functions: thread geometry, shared memory, barriers
//! and fences, warp functions, atomics, vector loads and stores, and the tensor cores'
//! block-level matrix product (the prelude re-exports them all; random numbers are
//! [`crate::random`]'s).
//!
//! On the GPU each becomes the CUDA C the attribute writes for it (the guide's language
//! reference says what); these Rust definitions are what rustc type-checks a kernel body
//! against and what the simulator executes. Called outside a kernel they panic: there is
//! no thread to ask.

pub(crate) mod atomic;
pub(crate) mod barrier;
pub(crate) mod geometry;
pub(crate) mod mma;
pub(crate) mod print;
pub(crate) mod shared;
pub(crate) mod vector;
pub(crate) mod warp;

pub use atomic::{
    atomic_add, atomic_and, atomic_cas, atomic_dec, atomic_exch, atomic_inc, atomic_max,
    atomic_min, atomic_or, atomic_sub, atomic_xor,
};
pub use barrier::{
    sync_grid, sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, threadfence,
    threadfence_block, threadfence_system,
};
pub use geometry::{
    block_dim, block_idx, grid_1d, grid_2d, grid_3d, grid_dim, gridsize_1d, gridsize_2d,
    gridsize_3d, thread_idx,
};
pub use mma::{
    copy_tile, copy_tile_async, mma, mma_acc, mma_tf32, wait_tiles, MmaAcc, MmaOperand, TileSource,
};
pub use shared::{dynamic_shared_array, shared_array, shared_array_2d};
pub use vector::{load4, store4, VectorSource, VectorTarget};
pub use warp::{
    active_mask, all_sync, any_sync, ballot_sync, eq_sync, lane_id, shfl_down_sync, shfl_sync,
    shfl_up_sync, shfl_xor_sync, sync_warp, warp_size, WARP_SIZE,
};
