//! Thread geometry: the values a kernel reads to know which thread it is.
//!
//! In CUDA C these are `threadIdx`, `blockIdx`, `blockDim` and `gridDim`; the attribute
//! translates each function below into them. The Rust definitions here are what the CPU
//! simulator runs: they read the simulated thread's position, which the simulator sets
//! before it runs each thread. Called outside a kernel they panic, since there is no
//! thread to describe.

use std::cell::Cell;

/// Three extents or coordinates, as CUDA's `dim3`/`uint3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// The x component.
    pub x: u32,
    /// The y component.
    pub y: u32,
    /// The z component.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// `x * y * z`, without overflow.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    pub(crate) const fn tuple(self) -> (u32, u32, u32) {
        (self.x, self.y, self.z)
    }
}

/// Where the simulated thread stands; set by the simulator around each thread's run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ThreadPosition {
    pub thread_idx: Dim3,
    pub block_idx: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
}

thread_local! {
    static POSITION: Cell<Option<ThreadPosition>> = const { Cell::new(None) };
}

pub(crate) fn set_position(p: Option<ThreadPosition>) {
    POSITION.with(|c| c.set(p));
}

/// The position [`set_position`] set last, if any.
pub(crate) fn current_position() -> Option<ThreadPosition> {
    POSITION.with(|c| c.get())
}

pub(crate) fn position() -> ThreadPosition {
    POSITION.with(|c| c.get()).expect(
        "thread geometry (grid_1d(), thread_idx(), ...) can only be read inside a #[gpu_kernel] \
         running on a device",
    )
}

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
