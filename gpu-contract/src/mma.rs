//! Tensor cores: how a block's `BM x BN` accumulator (`mma_acc::<BM, BN>()`) is spread over
//! the block's warps and lanes. The translator writes these numbers into the CUDA C and
//! the simulator computes the same element positions, so `acc.row(e)` and `acc.col(e)`
//! name the same element on both backends.
//!
//! The accumulator is tiled by `mma.sync.m16n8k16` fragments (PTX ISA, "Warp-level matrix
//! fragments for mma.m16n8k16"): the warps form a `warps_m x warps_n` grid, each warp owns
//! a `(BM / warps_m) x (BN / warps_n)` part made of `16 x 8` fragments, and lane `l` holds
//! four `f32`s of each fragment: rows `l / 4` and `l / 4 + 8`, columns `2 (l % 4)` and
//! `2 (l % 4) + 1`.

/// The rows, columns and depth of one `mma.sync` instruction's fragment (m16n8k16).
pub const FRAGMENT: (usize, usize, usize) = (16, 8, 16);

/// The accumulator elements one lane holds per fragment.
pub const PER_LANE: usize = 4;

/// Bytes a shared operand tile's rows are padded by in CUDA C, so the eight rows one
/// `ldmatrix` reads fall in distinct banks.
pub const OPERAND_PAD_BYTES: usize = 16;

/// The depth of one `mma.sync` step through tf32 (m16n8k8), for `f32` tiles.
pub const TF32_DEPTH: usize = 8;

/// The longest side of an accumulator (its tiles must fit a block's shared memory).
pub const MAX_SIDE: usize = 1024;

/// How a block's warps share a `bm x bn` accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpGrid {
    /// Warps along the rows.
    pub warps_m: usize,
    /// Warps along the columns.
    pub warps_n: usize,
    /// The accumulator's rows.
    pub bm: usize,
    /// The accumulator's columns.
    pub bn: usize,
}

impl WarpGrid {
    /// The grid for `threads` threads (whole warps) over a `bm x bn` accumulator: each warp's
    /// part a whole number of fragments, as square as it can be (fewest operand loads per
    /// product, ties to fewer warps along the rows); the reason when none fits.
    pub fn new(bm: usize, bn: usize, threads: usize) -> Result<WarpGrid, String> {
        if threads == 0 || !threads.is_multiple_of(32) {
            return Err(format!(
                "the block's {threads} threads are not whole warps: tensor-core operations \
                 need a multiple of 32 threads"
            ));
        }
        let warps = threads / 32;
        let (fm, fn_) = (FRAGMENT.0, FRAGMENT.1);
        if bm > MAX_SIDE || bn > MAX_SIDE {
            return Err(format!(
                "an accumulator of {bm} x {bn}: each side is at most {MAX_SIDE} (a block's \
                 tiles live in its shared memory)"
            ));
        }
        if bm == 0 || bn == 0 || !bm.is_multiple_of(fm) || !bn.is_multiple_of(2 * fn_) {
            return Err(format!(
                "an accumulator of {bm} x {bn}: its rows must be a multiple of {fm} and its \
                 columns of {}",
                2 * fn_
            ));
        }
        (1..=warps)
            .filter(|wm| warps.is_multiple_of(*wm))
            .map(|wm| (wm, warps / wm))
            .filter(|&(wm, wn)| bm.is_multiple_of(wm * fm) && bn.is_multiple_of(wn * 2 * fn_))
            .min_by_key(|&(wm, wn)| (bm / wm + bn / wn, wm))
            .map(|(warps_m, warps_n)| WarpGrid {
                warps_m,
                warps_n,
                bm,
                bn,
            })
            .ok_or_else(|| {
                format!(
                    "{warps} warps cannot share an accumulator of {bm} x {bn} in parts of whole \
                     {fm} x {} tiles: choose a shape whose rows divide into {fm}-row and \
                     columns into {}-column parts per warp, or another block size",
                    2 * fn_,
                    2 * fn_
                )
            })
    }

    /// The elements each thread holds.
    pub const fn per_thread(&self) -> usize {
        self.bm * self.bn / (self.warps_m * self.warps_n * 32)
    }

    /// Fragments along a warp's rows and columns.
    pub const fn fragments(&self) -> (usize, usize) {
        (
            self.bm / self.warps_m / FRAGMENT.0,
            self.bn / self.warps_n / FRAGMENT.1,
        )
    }

    /// The (row, column) of element `e` of thread `thread` (its index in the block,
    /// `x + y dx + z dx dy`), for `e < per_thread()`.
    pub const fn position(&self, thread: usize, e: usize) -> (usize, usize) {
        let (warp, lane) = (thread / 32, thread % 32);
        let (wm, wn) = (warp / self.warps_n, warp % self.warps_n);
        let (_, fn_) = self.fragments();
        let (f, q) = (e / PER_LANE, e % PER_LANE);
        let (i, j) = (f / fn_, f % fn_);
        let row = wm * (self.bm / self.warps_m) + i * FRAGMENT.0 + lane / 4 + (q / 2) * 8;
        let col = wn * (self.bn / self.warps_n) + j * FRAGMENT.1 + 2 * (lane % 4) + q % 2;
        (row, col)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of the accumulator is held by exactly one (thread, element) pair.
    #[test]
    fn positions_cover_the_tile_once() {
        for (bm, bn, threads) in [(64, 64, 128), (128, 128, 256), (16, 16, 32), (128, 64, 128)] {
            let g = WarpGrid::new(bm, bn, threads).unwrap();
            let mut seen = vec![0u8; bm * bn];
            for t in 0..threads {
                for e in 0..g.per_thread() {
                    let (r, c) = g.position(t, e);
                    seen[r * bn + c] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{bm} x {bn} over {threads}");
        }
    }

    /// The PTX ISA's accumulator layout: lane 5 holds rows 1 and 9, columns 2 and 3.
    #[test]
    fn lane_layout_is_the_isas() {
        let g = WarpGrid::new(16, 16, 32).unwrap();
        let got: Vec<_> = (0..4).map(|e| g.position(5, e)).collect();
        assert_eq!(got, [(1, 2), (1, 3), (9, 2), (9, 3)]);
        assert_eq!(g.position(5, 4), (1, 10));
    }

    #[test]
    fn warp_grid_is_as_square_as_fits_and_refuses_what_cannot() {
        let g = WarpGrid::new(128, 128, 256).unwrap();
        assert_eq!((g.warps_m, g.warps_n), (2, 4));
        assert!(WarpGrid::new(64, 64, 100).is_err());
        assert!(WarpGrid::new(24, 64, 128).is_err());
        assert!(WarpGrid::new(16, 16, 256).is_err());
        assert!(WarpGrid::new(1 << 32, 1 << 32, 128).is_err());
    }
}
