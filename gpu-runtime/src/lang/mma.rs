//! Tensor cores in the kernel language: a block's matrix product into an `f32`
//! accumulator spread over its threads, and the block-wide tile copies that feed it.
//!
//! ```ignore
//! #[gpu_kernel(launch_bounds(128))]
//! fn gemm(a: &DeviceArray2<bf16>, b: &DeviceArray2<bf16>, c: &mut DeviceArray2<f32>) {
//!     let mut sa = shared_array_2d::<bf16, 64, 32>();
//!     let mut sb = shared_array_2d::<bf16, 32, 64>();
//!     let mut acc = mma_acc::<64, 64>();
//!     let (row0, col0) = (block_idx().y as usize * 64, block_idx().x as usize * 64);
//!     for k0 in (0..a.cols()).step_by(32) {
//!         copy_tile(&mut sa, a, row0, k0);
//!         copy_tile(&mut sb, b, k0, col0);
//!         sync_threads();
//!         mma(&mut acc, &sa, &sb);
//!         sync_threads();
//!     }
//!     #[unroll]
//!     for e in 0..acc.len() {
//!         let (r, col) = (row0 + acc.row(e), col0 + acc.col(e));
//!         if r < c.rows() && col < c.cols() {
//!             c[(r, col)] = acc[e];
//!         }
//!     }
//! }
//! ```
//!
//! On the GPU `mma` is `ldmatrix` and `mma.sync.m16n8k16` (sm_80 and later) and
//! `copy_tile` 16-byte copies; here in the simulator each thread computes its own elements
//! of the product from the shared tiles. Which thread holds which element is
//! [`gpu_contract::mma::WarpGrid`]'s layout on both backends (`acc.row(e)`, `acc.col(e)`);
//! kernels should not depend on it beyond those two methods.

use gpu_contract::mma::{WarpGrid, FRAGMENT, TF32_DEPTH};

use crate::backend::sim::views::{SimArray2, SimArray2Mut};
use crate::backend::sim::{with_block, LocalArray};
use crate::dtype::{Element, Num};
use crate::lang::geometry::{block_dim, thread_idx};
use crate::lang::shared::SharedArray2;

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// The dtypes the tensor cores multiply: `f16` and `bf16` (products exact in `f32`,
/// accumulated in `f32`); also the bound of a kernel generic over them
/// (`fn gemm<T: MmaOperand>(a: &DeviceArray2<T>, ..)`), whose `T` computes as a `Float`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor-core operand dtype",
    label = "`mma` multiplies `f16` or `bf16` tiles",
    note = "convert the tiles' elements to `bf16` or `f16` (an `f32` product through tf32 is not supported yet)"
)]
pub trait MmaOperand: crate::dtype::Float + sealed::Sealed {}
impl MmaOperand for half::f16 {}
impl MmaOperand for half::bf16 {}

/// This thread's part of a block's `BM x BN` `f32` accumulator (`mma_acc::<BM, BN>()`):
/// `acc.len()` elements, `acc[e]` read and written as a local array's, each at row
/// `acc.row(e)` and column `acc.col(e)` of the tile.
#[derive(Clone, Debug)]
pub struct MmaAcc<const BM: usize, const BN: usize> {
    vals: Vec<f32>,
    grid: WarpGrid,
    thread: usize,
}

/// This thread's index in its block, `x + y dx + z dx dy`, and the block's threads.
fn block_thread() -> (usize, usize) {
    let (t, d) = (thread_idx(), block_dim());
    let (dx, dy) = (d.x as usize, d.y as usize);
    (
        t.x as usize + dx * (t.y as usize + dy * t.z as usize),
        dx * dy * d.z as usize,
    )
}

/// A zero `BM x BN` accumulator spread over the block's threads: `acc.len()` elements each.
/// The kernel fixes its block size with `launch_bounds(threads)`, and a launch with another
/// block size is refused.
#[track_caller]
pub fn mma_acc<const BM: usize, const BN: usize>() -> MmaAcc<BM, BN> {
    let (thread, threads) = block_thread();
    let grid = match WarpGrid::new(BM, BN, threads) {
        Ok(g) => g,
        // The launch checked the block size against the kernel's; a direct call from
        // host code has no block.
        Err(why) => panic!("mma_acc::<{BM}, {BN}>(): {why}"),
    };
    MmaAcc {
        vals: vec![0.0; grid.per_thread()],
        grid,
        thread,
    }
}

impl<const BM: usize, const BN: usize> MmaAcc<BM, BN> {
    /// The elements this thread holds.
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    /// Whether this thread holds none (never: every thread holds a part).
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    /// The tile row of element `e` (for `e >= len()` a number computed as for the others,
    /// as on the GPU; it names no element).
    pub fn row(&self, e: usize) -> usize {
        self.position(e).0
    }

    /// The tile column of element `e` (see [`row`](Self::row)).
    pub fn col(&self, e: usize) -> usize {
        self.position(e).1
    }

    /// The C prelude's arithmetic (`gt_mma_row`/`gt_mma_col`), wrapping as its 64-bit
    /// unsigned numbers do.
    fn position(&self, e: usize) -> (usize, usize) {
        let g = self.grid;
        let (lane, warp) = (self.thread % 32, self.thread / 32);
        let fn_ = g.fragments().1;
        let row = (warp / g.warps_n * (BM / g.warps_m))
            .wrapping_add((e / 4 / fn_).wrapping_mul(FRAGMENT.0))
            .wrapping_add(lane / 4 + (e % 4) / 2 * 8);
        let col = (warp % g.warps_n * (BN / g.warps_n))
            .wrapping_add((e / 4 % fn_).wrapping_mul(FRAGMENT.1))
            .wrapping_add(2 * (lane % 4) + e % 2);
        (row, col)
    }
}

impl<const BM: usize, const BN: usize> LocalArray for MmaAcc<BM, BN> {
    type Elem = f32;
    fn elems(&self) -> &[f32] {
        &self.vals
    }
    fn elems_mut(&mut self) -> &mut [f32] {
        &mut self.vals
    }
}

/// `acc += a * b` for the block's tiles: `a` is `BM x BK`, `b` is `BK x BN`, both shared,
/// `BK` a multiple of 16. Every thread of the block calls it with the same tiles (the
/// attribute refuses a call under a branch that depends on the thread), after a barrier
/// that follows the tiles' writes.
///
/// Each thread adds to its elements one `k16` step at a time: the step's sixteen products
/// (exact in `f32`) summed exactly, then added to the element with one `f32` rounding. The
/// GPU's tensor cores add within a step in an order and with roundings of their own: the
/// results agree exactly where every partial sum is exact (small integers) and otherwise
/// within the README's bound.
pub fn mma<T: MmaOperand, const BM: usize, const BN: usize, const BK: usize>(
    acc: &mut MmaAcc<BM, BN>,
    a: &SharedArray2<T, BM, BK>,
    b: &SharedArray2<T, BK, BN>,
) {
    for e in 0..acc.vals.len() {
        let (r, c) = acc.grid.position(acc.thread, e);
        let mut v = acc.vals[e];
        for k0 in (0..BK).step_by(FRAGMENT.2) {
            let step: f64 = (k0..(k0 + FRAGMENT.2).min(BK))
                .map(|k| a.get((r, k)).to_f64() * b.get((k, c)).to_f64())
                .sum();
            v = (f64::from(v) + step) as f32;
        }
        acc.vals[e] = v;
    }
}

/// `acc += a * b` for `f32` tiles through the tensor cores' tf32 format: each value of `a`
/// and `b` rounded to tf32 first ([`round_tf32`]: 10 bits of mantissa), then multiplied
/// (exactly) and added in `f32` as [`mma`] does, one 8-deep step at a time; `BK` a
/// multiple of 8. Asked for by name, since tf32 keeps fewer bits than `f32`.
pub fn mma_tf32<const BM: usize, const BN: usize, const BK: usize>(
    acc: &mut MmaAcc<BM, BN>,
    a: &SharedArray2<f32, BM, BK>,
    b: &SharedArray2<f32, BK, BN>,
) {
    for e in 0..acc.vals.len() {
        let (r, c) = acc.grid.position(acc.thread, e);
        let mut v = acc.vals[e];
        for k0 in (0..BK).step_by(TF32_DEPTH) {
            let step: f64 = (k0..(k0 + TF32_DEPTH).min(BK))
                .map(|k| {
                    f64::from(round_tf32(a.get((r, k)))) * f64::from(round_tf32(b.get((k, c))))
                })
                .sum();
            v = (f64::from(v) + step) as f32;
        }
        acc.vals[e] = v;
    }
}

/// `x` rounded to tf32, as the GPU's `cvt.rna.tf32.f32` rounds it: to the nearest value
/// with 10 bits of mantissa, ties away from zero, kept in an `f32` (NaN and infinities
/// as they are). What `mma_tf32` multiplies; for a host reference of its results.
pub fn round_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    f32::from_bits(x.to_bits().wrapping_add(0x1000) & !0x1fff)
}

/// A two-dimensional array a tile is copied from: an array parameter of the kernel.
pub trait TileSource<T> {
    /// `(rows, cols)`.
    fn shape(&self) -> (usize, usize);
    /// The element at `(row, col)`, in range.
    fn at(&self, row: usize, col: usize) -> T;
}

impl<T: Element> TileSource<T> for SimArray2<'_, T> {
    fn shape(&self) -> (usize, usize) {
        (self.rows(), self.cols())
    }
    fn at(&self, row: usize, col: usize) -> T {
        self.get((row, col))
    }
}

impl<T: Element> TileSource<T> for SimArray2Mut<'_, T> {
    fn shape(&self) -> (usize, usize) {
        (self.rows(), self.cols())
    }
    fn at(&self, row: usize, col: usize) -> T {
        self.get((row, col))
    }
}

/// `dst = src[row0.., col0..]`, `R x C` elements, those past `src`'s edge zero. The
/// block's threads share the copy (how is unspecified: the GPU moves 16 bytes at a time),
/// so every thread of the block calls it with the same arguments, and a barrier comes
/// between it and the tile's reads.
pub fn copy_tile<T: Num, S: TileSource<T>, const R: usize, const C: usize>(
    dst: &mut SharedArray2<T, R, C>,
    src: S,
    row0: usize,
    col0: usize,
) {
    for (r, c, v) in this_threads_share::<T, S, C>(src, row0, col0, R * C) {
        dst.set((r, c), v);
    }
}

/// This thread's share of a copy of `elements` elements of a `C`-column tile from `src` at
/// (`row0`, `col0`): each element's place and value, zero past `src`'s edge.
fn this_threads_share<T: Num, S: TileSource<T>, const C: usize>(
    src: S,
    row0: usize,
    col0: usize,
    elements: usize,
) -> impl Iterator<Item = (usize, usize, T)> {
    let (rows, cols) = src.shape();
    let rows_left = rows.saturating_sub(row0);
    let cols_left = cols.saturating_sub(col0);
    let (t, n) = block_thread();
    (t..elements).step_by(n.max(1)).map(move |idx| {
        let (r, c) = (idx / C, idx % C);
        let v = if r < rows_left && c < cols_left {
            src.at(row0 + r, col0 + c)
        } else {
            T::zero()
        };
        (r, c, v)
    })
}

/// [`copy_tile`], asynchronous on the GPU: the copy is issued (`cp.async`, 16 bytes at a
/// time) and its bytes arrive by this thread's [`wait_tiles`]; meanwhile the thread goes on
/// (with the product of the tiles copied before, for a pipeline of several buffers). The
/// tile is read only after `wait_tiles` and a barrier. The simulator reads the source now
/// and writes the tile at the `wait_tiles` that retires this copy (never, if none does),
/// so a kernel that reads a tile before waiting for it sees the old contents here too.
pub fn copy_tile_async<T: Num, S: TileSource<T>, const R: usize, const C: usize>(
    dst: &mut SharedArray2<T, R, C>,
    src: S,
    row0: usize,
    col0: usize,
) {
    // Read now, as the GPU may; written at the wait.
    let values: Vec<(usize, usize, T)> =
        this_threads_share::<T, S, C>(src, row0, col0, R * C).collect();
    let (t, _) = block_thread();
    let tile = *dst;
    with_block(|b| {
        b.push_async_copy(
            t,
            Box::new(move || {
                for (r, c, v) in values {
                    tile.set((r, c), v);
                }
            }),
        )
    });
}

/// Wait until at most `pending` (an integer literal from 0 to 7) of this thread's
/// [`copy_tile_async`] copies are still in flight (`cp.async.wait_group`); a barrier
/// after it makes every thread's copies visible to the block.
pub fn wait_tiles(pending: u32) {
    let (t, _) = block_thread();
    let landed = with_block(|b| b.retire_async_copies(t, pending as usize));
    for copy in landed {
        copy();
    }
}
