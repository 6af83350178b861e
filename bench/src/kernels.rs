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

/// Register-tiled SGEMM: a 128 x 128 block of C per 256 threads, 8 x 8 outputs per
/// thread (rows `ty + 16 i`, columns `tx + 16 j`, so shared reads and global writes are
/// conflict-free and coalesced), K in steps of 8 through shared memory.
#[gpu_kernel(launch_bounds(256))]
pub fn sgemm_registers(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
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

checked_and_unchecked! {
    /// SGEMM through 16-byte vectors and two buffers per tile: a 128 x 128 block of C per
    /// 256 threads, 8 x 8 outputs per thread (rows `4 ty..4 ty + 4` and `64 + 4 ty..`,
    /// columns likewise from `tx`, so each thread's eight values of a row of the A tile
    /// and of the B tile are two `load4`s from shared memory each), K in steps of 8. The
    /// next tile is read from global memory (one `load4` of A and of B per thread) while
    /// the current one is multiplied, then stored to the other buffer: one barrier per
    /// step. For `m` and `n` multiples of 128 and `k` of 8 only, as the benchmark runs it:
    /// other sizes give wrong products (a tail of `k` is left out) or indices out of range
    /// (reported, as always). Two blocks per multiprocessor (at most 128 registers a
    /// thread), so one block's barrier wait overlaps the other's arithmetic.
    #[gpu_kernel(launch_bounds(256, 2),)]
    fn sgemm_vectors / sgemm_vectors_unchecked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
        // Buffer `t` of A's tile, transposed: sa[1024 t + 128 kk + row]; of B's: sb[1024 t
        // + 128 kk + col].
        let mut sa = shared_array::<f32, 2048>();
        let mut sb = shared_array::<f32, 2048>();
        let tid = thread_idx().x as usize;
        let row0 = block_idx().y as usize * 128;
        let col0 = block_idx().x as usize * 128;
        let ty = tid / 16;
        let tx = tid % 16;
        // The four values of A (one row, four consecutive k) and of B (one k, four
        // consecutive columns) each thread moves per step.
        let a_row = tid / 2;
        let a_col = (tid % 2) * 4;
        let b_row = tid / 32;
        let b_col = (tid % 32) * 4;
        let mut acc = [[0.0f32; 8]; 8];
        let mut ra = [0.0f32; 8];
        let mut rb = [0.0f32; 8];
        let ta = load4(a, ((row0 + a_row) * k + a_col) / 4);
        let tb = load4(b, (b_row * n + col0 + b_col) / 4);
        for q in 0..4 {
            sa[(a_col + q) * 128 + a_row] = ta[q];
        }
        store4(sb, (b_row * 128 + b_col) / 4, tb[0], tb[1], tb[2], tb[3]);
        sync_threads();
        let steps = k / 8;
        let mut va = [0.0f32; 4];
        let mut vb = [0.0f32; 4];
        for step in 0..steps {
            let cur = step % 2;
            let next = (step + 1) % 2;
            // The next step's values; under `nxt < steps` the launch's sizes prove every
            // index in range.
            let nxt = step + 1;
            if nxt < steps {
                let ta = load4(a, ((row0 + a_row) * k + nxt * 8 + a_col) / 4);
                let tb = load4(b, ((nxt * 8 + b_row) * n + col0 + b_col) / 4);
                for q in 0..4 {
                    va[q] = ta[q];
                    vb[q] = tb[q];
                }
            }
            // Unrolled: the eight steps' shared reads are issued ahead of their products.
            #[unroll]
            for kk in 0..8 {
                let x0 = load4(sa, cur * 256 + kk * 32 + ty);
                let x1 = load4(sa, cur * 256 + kk * 32 + 16 + ty);
                let y0 = load4(sb, cur * 256 + kk * 32 + tx);
                let y1 = load4(sb, cur * 256 + kk * 32 + 16 + tx);
                for q in 0..4 {
                    ra[q] = x0[q];
                    ra[q + 4] = x1[q];
                    rb[q] = y0[q];
                    rb[q + 4] = y1[q];
                }
                for i in 0..8 {
                    for j in 0..8 {
                        acc[i][j] += ra[i] * rb[j];
                    }
                }
            }
            // Every thread has finished reading this buffer since the last barrier.
            for q in 0..4 {
                sa[next * 1024 + (a_col + q) * 128 + a_row] = va[q];
            }
            store4(sb, next * 256 + (b_row * 128 + b_col) / 4, vb[0], vb[1], vb[2], vb[3]);
            sync_threads();
        }
        for i in 0..8 {
            let r = row0 + (i / 4) * 64 + ty * 4 + i % 4;
            store4(c, (r * n + col0) / 4 + tx, acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
            store4(c, (r * n + col0) / 4 + 16 + tx, acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The SGEMMs on the simulator against a CPU product, on sizes of whole tiles (two
    /// blocks of C, three steps of K), every output poisoned first.
    #[test]
    fn sgemms_compute_the_product() {
        let dev = Device::simulator();
        let (m, k, n) = (128usize, 24usize, 256usize);
        // Exact in f32: small integers, so every order of the sums gives the same bits.
        let a: Vec<f32> = (0..m * k)
            .map(|i| ((i * 7 + 3) % 11) as f32 - 5.0)
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| ((i * 5 + 1) % 13) as f32 - 6.0)
            .collect();
        let mut want = vec![0.0f32; m * n];
        for i in 0..m {
            for j in 0..n {
                want[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
            }
        }
        let (da, db) = (dev.to_device(&a).unwrap(), dev.to_device(&b).unwrap());
        let grid = ((n / 128) as u32, (m / 128) as u32);
        let mut c = dev.to_device(&vec![f32::NAN; m * n]).unwrap();
        launch!(sgemm_vectors[grid, 256](&da, &db, &mut c, m, k, n)).unwrap();
        assert_eq!(c.to_host().unwrap(), want, "sgemm_vectors");
        let mut c = dev.to_device(&vec![f32::NAN; m * n]).unwrap();
        launch!(sgemm_registers[grid, 256](&da, &db, &mut c, m, k, n)).unwrap();
        assert_eq!(c.to_host().unwrap(), want, "sgemm_registers");
    }
}
