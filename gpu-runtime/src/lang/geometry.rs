//! Thread geometry: the values a kernel reads to know which thread it is.
//!
//! In CUDA C these are `threadIdx`, `blockIdx`, `blockDim` and `gridDim`; the attribute
//! translates each function below into them. The Rust definitions here are what the CPU
//! simulator runs: they read the simulated thread's position, which the simulator sets
//! before it runs each thread. Called outside a kernel they panic, since there is no
//! thread to describe.

use crate::backend::sim::position::position;
use crate::launch::dims::Dim3;

/// `threadIdx`: this thread's position in its block.
pub fn thread_idx() -> Dim3 {
    position().thread_idx
}

/// `blockIdx`: this block's position in the grid.
pub fn block_idx() -> Dim3 {
    position().block_idx
}

/// `blockDim`: the extents of a block, in threads.
pub fn block_dim() -> Dim3 {
    position().block_dim
}

/// `gridDim`: the extents of the grid, in blocks.
pub fn grid_dim() -> Dim3 {
    position().grid_dim
}

fn global(axis: fn(Dim3) -> u32) -> usize {
    let p = position();
    axis(p.block_idx) as usize * axis(p.block_dim) as usize + axis(p.thread_idx) as usize
}

fn extent(axis: fn(Dim3) -> u32) -> usize {
    let p = position();
    axis(p.grid_dim) as usize * axis(p.block_dim) as usize
}

/// This thread's global x index, `blockIdx.x * blockDim.x + threadIdx.x`, in 64 bits
/// (Numba's `cuda.grid(1)`).
pub fn grid_1d() -> usize {
    global(|d| d.x)
}

/// This thread's global `(x, y)` index (Numba's `cuda.grid(2)`).
pub fn grid_2d() -> (usize, usize) {
    (global(|d| d.x), global(|d| d.y))
}

/// This thread's global `(x, y, z)` index (Numba's `cuda.grid(3)`).
pub fn grid_3d() -> (usize, usize, usize) {
    (global(|d| d.x), global(|d| d.y), global(|d| d.z))
}

/// The number of threads in the grid along x, `gridDim.x * blockDim.x`
/// (Numba's `cuda.gridsize(1)`), the stride of a grid-stride loop.
pub fn gridsize_1d() -> usize {
    extent(|d| d.x)
}

/// The grid's extents in threads along `(x, y)` (Numba's `cuda.gridsize(2)`).
pub fn gridsize_2d() -> (usize, usize) {
    (extent(|d| d.x), extent(|d| d.y))
}

/// The grid's extents in threads along `(x, y, z)` (Numba's `cuda.gridsize(3)`).
pub fn gridsize_3d() -> (usize, usize, usize) {
    (extent(|d| d.x), extent(|d| d.y), extent(|d| d.z))
}
