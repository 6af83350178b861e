//! The benchmark kernels, in our kernel language. Each is declared twice by
//! `checked_and_unchecked!`: as a user writes it (every index checked, the default) and
//! with `unchecked`, so P11 can measure what the checks cost in the same run.

use gpu_runtime::prelude::*;

/// Declares `$checked` as written and `$unchecked` with the `unchecked` option added.
macro_rules! checked_and_unchecked {
    (
        $(#[doc = $doc:literal])*
        #[gpu_kernel($($opt:tt)*)]
        fn $checked:ident / $unchecked:ident $(<$g:ident: $bound:ident>)? ($($params:tt)*)
        { $($body:tt)* }
    ) => {
        $(#[doc = $doc])*
        #[gpu_kernel($($opt)*)]
        pub fn $checked $(<$g: $bound>)? ($($params)*) { $($body)* }

        /// The kernel above without index checks: P11's control.
        #[gpu_kernel($($opt)* unchecked)]
        pub fn $unchecked $(<$g: $bound>)? ($($params)*) { $($body)* }
    };
}

checked_and_unchecked! {
    /// `c = a + b`, guarded by the length of `a` as users write it.
    #[gpu_kernel()]
    fn vec_add / vec_add_unchecked<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
        let i = grid_1d();
        if i < a.len() {
            c[i] = a[i] + b[i];
        }
    }
}

checked_and_unchecked! {
    /// `y = alpha * x + y`.
    #[gpu_kernel()]
    fn saxpy / saxpy_unchecked<T: Float>(alpha: T, x: &[T], y: &mut [T]) {
        let i = grid_1d();
        if i < y.len() {
            y[i] = alpha * x[i] + y[i];
        }
    }
}

checked_and_unchecked! {
    /// vec_add four elements at a time (the last thread adds the tail one by one).
    #[gpu_kernel()]
    fn vec_add4 / vec_add4_unchecked(a: &[f32], b: &[f32], c: &mut [f32]) {
        let i = grid_1d();
        let full = a.len() / 4;
        if i < full {
            let x = load4(a, i);
            let y = load4(b, i);
            store4(c, i, x[0] + y[0], x[1] + y[1], x[2] + y[2], x[3] + y[3]);
        } else if i == full {
            for k in 4 * full..a.len() {
                c[k] = a[k] + b[k];
            }
        }
    }
}

/// The smallest launch: one thread adds one.
#[gpu_kernel]
pub fn tiny(x: &mut [f32]) {
    if thread_idx().x == 0 {
        x[0] += 1.0;
    }
}

checked_and_unchecked! {
    /// Numba's documented `fast_matmul` algorithm (16 x 16 tiles of A and B in shared
    /// memory, one output per thread), as in `examples/matmul.rs`.
    #[gpu_kernel()]
    fn matmul_tiled / matmul_tiled_unchecked(
        a: &[f32],
        b: &[f32],
        c: &mut [f32],
        m: usize,
        k: usize,
        n: usize
    ) {
        let mut sa = shared_array_2d::<f32, 16, 16>();
        let mut sb = shared_array_2d::<f32, 16, 16>();
        let (col, row) = grid_2d();
        let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
        let mut acc = 0.0f32;
        for t in 0..(k + 15) / 16 {
            let (ka, kb) = (t * 16 + tx, t * 16 + ty);
            sa[(ty, tx)] = if row < m && ka < k {
                a[row * k + ka]
            } else {
                0.0
            };
            sb[(ty, tx)] = if kb < k && col < n {
                b[kb * n + col]
            } else {
                0.0
            };
            sync_threads();
            for j in 0..16 {
                acc += sa[(ty, j)] * sb[(j, tx)];
            }
            sync_threads();
        }
        if row < m && col < n {
            c[row * n + col] = acc;
        }
    }
}

checked_and_unchecked! {
    /// Register-tiled SGEMM: a 128 x 128 block of C per 256 threads, 8 x 8 outputs per
    /// thread (rows `ty + 16 i`, columns `tx + 16 j`, so shared reads and global writes are
    /// conflict-free and coalesced), K in steps of 8 through shared memory.
    #[gpu_kernel(launch_bounds(256),)]
    fn sgemm_registers / sgemm_registers_unchecked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
        let mut sa = shared_array_2d::<f32, 8, 128>();
        let mut sb = shared_array_2d::<f32, 8, 128>();
        let tid = thread_idx().x as usize;
        let row0 = block_idx().y as usize * 128;
        let col0 = block_idx().x as usize * 128;
        let ty = tid / 16;
        let tx = tid % 16;
        let mut acc = [[0.0f32; 8]; 8];
        let mut ra = [0.0f32; 8];
        let mut rb = [0.0f32; 8];
        // Each thread stages 4 elements of A (one row, 4 consecutive k) and 4 of B.
        let a_row = tid / 2;
        let a_col = (tid % 2) * 4;
        let b_row = tid / 32;
        let b_col = (tid % 32) * 4;
        let mut k0 = 0usize;
        while k0 < k {
            for q in 0..4 {
                let (gr, gc) = (row0 + a_row, k0 + a_col + q);
                sa[(a_col + q, a_row)] = if gr < m && gc < k {
                    a[gr * k + gc]
                } else {
                    0.0
                };
                let (hr, hc) = (k0 + b_row, col0 + b_col + q);
                sb[(b_row, b_col + q)] = if hr < k && hc < n {
                    b[hr * n + hc]
                } else {
                    0.0
                };
            }
            sync_threads();
            for kk in 0..8 {
                for i in 0..8 {
                    ra[i] = sa[(kk, ty + 16 * i)];
                }
                for j in 0..8 {
                    rb[j] = sb[(kk, tx + 16 * j)];
                }
                for i in 0..8 {
                    for j in 0..8 {
                        acc[i][j] += ra[i] * rb[j];
                    }
                }
            }
            sync_threads();
            k0 += 8;
        }
        for i in 0..8 {
            for j in 0..8 {
                let (r, cc) = (row0 + ty + 16 * i, col0 + tx + 16 * j);
                if r < m && cc < n {
                    c[r * n + cc] = acc[i][j];
                }
            }
        }
    }
}

checked_and_unchecked! {
    /// Partial sums: each thread accumulates four independent grid-stride streams of
    /// 16-byte loads (sixteen numbers in flight), the odd tail one number per thread, then
    /// warp shuffles and one shared value per warp.
    #[gpu_kernel(launch_bounds(256),)]
    fn sum_partials / sum_partials_unchecked(x: &[f32], partial: &mut [f32]) {
        let mut cache = shared_array::<f32, 8>();
        let tid = thread_idx().x as usize;
        let stride = gridsize_1d();
        let n4 = x.len() / 4;
        let mut s0 = 0.0f32;
        let mut s1 = 0.0f32;
        let mut s2 = 0.0f32;
        let mut s3 = 0.0f32;
        for i in (grid_1d()..n4).step_by(4 * stride) {
            if i + 3 * stride < n4 {
                let a = load4(x, i);
                let b = load4(x, i + stride);
                let c = load4(x, i + 2 * stride);
                let d = load4(x, i + 3 * stride);
                s0 += (a[0] + a[1]) + (a[2] + a[3]);
                s1 += (b[0] + b[1]) + (b[2] + b[3]);
                s2 += (c[0] + c[1]) + (c[2] + c[3]);
                s3 += (d[0] + d[1]) + (d[2] + d[3]);
            } else {
                for j in (i..n4).step_by(stride) {
                    let a = load4(x, j);
                    s0 += (a[0] + a[1]) + (a[2] + a[3]);
                }
            }
        }
        let t = 4 * n4 + grid_1d();
        if t < x.len() {
            s0 += x[t];
        }
        let mut v = (s0 + s1) + (s2 + s3);
        let mut o = 16u32;
        while o > 0 {
            v += shfl_down_sync(0xffff_ffff, v, o);
            o /= 2;
        }
        if tid % 32 == 0 {
            cache[tid / 32] = v;
        }
        sync_threads();
        if tid < 32 {
            let mut v = if tid < 8 { cache[tid] } else { 0.0 };
            let mut o = 4u32;
            while o > 0 {
                v += shfl_down_sync(0xffff_ffff, v, o);
                o /= 2;
            }
            if tid == 0 {
                partial[block_idx().x as usize] = v;
            }
        }
    }
}

/// `a + b` as a `#[gpu_reduce]` reduction: the sugar's sum, against `cp.sum`.
#[gpu_reduce]
pub fn sum_of<T: Num>(a: T, b: T) -> T {
    a + b
}
