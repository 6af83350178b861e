//! Kernels calling `#[gpu_device]` functions: generic, calling each other, with early
//! returns and value-producing `if`s, from a module of their own.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

pub mod helpers {
    use gpu_runtime::prelude::*;

    /// `x` clamped to `[lo, hi]`.
    #[gpu_device]
    pub fn clamp<T: Float>(x: T, lo: T, hi: T) -> T {
        if x < lo {
            return lo;
        }
        x.min(hi)
    }

    /// A smooth step between 0 and 1, through `clamp`.
    #[gpu_device]
    pub fn smoothstep<T: Float>(x: T) -> T {
        let t = clamp(x, T::zero(), T::one());
        t * t * (T::from_f64(3.0) - T::from_f64(2.0) * t)
    }

    /// Collatz steps from `n`, capped: loops and a value-producing `if` in a device function.
    #[gpu_device]
    pub fn collatz_steps(n: u64, cap: u32) -> u32 {
        let mut v = n;
        let mut steps = 0u32;
        while v > 1 && steps < cap {
            v = if v % 2 == 0 {
                v / 2
            } else {
                let up = 3 * v;
                up + 1
            };
            steps += 1;
        }
        steps
    }

    /// `a[k] * b[k]` summed over `start..start + width`, within `a`: a device function
    /// that reads whole arrays.
    #[gpu_device]
    pub fn window_dot<T: Float>(a: &[T], b: &[T], start: usize, width: usize) -> T {
        let mut s = T::zero();
        for k in start..start + width {
            if k < a.len() {
                s += a[k] * b[k];
            }
        }
        s
    }

    /// The sum of squares of a window: passes its array on, twice, to another device
    /// function.
    #[gpu_device]
    pub fn window_energy<T: Float>(a: &[T], start: usize, width: usize) -> T {
        window_dot(a, a, start, width)
    }

    /// Copies `x[base + t]` (or 0 past the end) into `tile[t]`: writes a shared array it
    /// is given.
    #[gpu_device]
    pub fn stage(tile: &mut [f32], x: &[f32], base: usize, t: usize) {
        tile[t] = if base + t < x.len() { x[base + t] } else { 0.0 };
    }

    /// `tile[0] + ... + tile[len - 1]`, in order: reads a shared array it is given.
    #[gpu_device]
    pub fn tile_sum(tile: &[f32]) -> f32 {
        let mut s = 0.0f32;
        for k in 0..tile.len() {
            s += tile[k];
        }
        s
    }

    /// Counts `bin` in a histogram it is given, atomically.
    #[gpu_device]
    pub fn count(bins: &mut [u32], bin: usize) {
        atomic_add(bins, bin % bins.len(), 1u32);
    }

    /// The mean of `m[(r, c)]` and its neighbours inside `m`: a device function reading a
    /// 2-D array it is given, with its shape.
    #[gpu_device]
    pub fn neighbourhood<T: Float>(m: &DeviceArray2<T>, r: usize, c: usize) -> T {
        let mut s = m[(r, c)];
        let mut n = 1.0f64;
        if r > 0 {
            s += m[(r - 1, c)];
            n += 1.0;
        }
        if r + 1 < m.rows() {
            s += m[(r + 1, c)];
            n += 1.0;
        }
        if c > 0 {
            s += m[(r, c - 1)];
            n += 1.0;
        }
        if c + 1 < m.cols() {
            s += m[(r, c + 1)];
            n += 1.0;
        }
        s / T::from_f64(n)
    }

    /// `m[(r, c)] += v`: writes a 2-D array it is given.
    #[gpu_device]
    pub fn add_at<T: Float>(m: &mut DeviceArray2<T>, r: usize, c: usize, v: T) {
        m[(r, c)] += v;
    }

    /// The corner's neighbourhood: passes its 2-D array on to another device function.
    #[gpu_device]
    pub fn corner<T: Float>(m: &DeviceArray2<T>) -> T {
        neighbourhood(m, 0, 0)
    }

    /// `v[(i, j, 0)] + ... + v[(i, j, depth - 1)]`: reads a 3-D array it is given.
    #[gpu_device]
    pub fn depth_sum(v: &DeviceArray3<f32>, i: usize, j: usize) -> f32 {
        let mut s = 0.0f32;
        for k in 0..v.shape().2 {
            s += v[(i, j, k)];
        }
        s
    }

    /// `v[(i, j, k)] = x`: writes a 3-D array it is given.
    #[gpu_device]
    pub fn put3(v: &mut DeviceArray3<f32>, i: usize, j: usize, k: usize, x: f32) {
        v[(i, j, k)] = x;
    }

    /// `m[(r, c)]`, unguarded: an index past an axis is the caller's array's violation.
    #[gpu_device]
    pub fn at2<T: Float>(m: &DeviceArray2<T>, r: usize, c: usize) -> T {
        m[(r, c)]
    }

    /// Writes `v * s` at `i` of an array it is given, if `i` is inside it.
    #[gpu_device]
    pub fn put_scaled<T: Float>(out: &mut [T], i: usize, v: T, s: T) {
        if i < out.len() {
            out[i] = v * s;
        }
    }
}

/// Array parameters passed whole to device functions, read-only and writable, and on
/// from one device function to another.
#[gpu_kernel]
pub fn windows<T: Float>(a: &[T], b: &[T], out: &mut [T], energy: &mut [T], width: usize) {
    let i = grid_1d();
    if i < out.len() {
        let d: T = helpers::window_dot(a, b, i, width);
        helpers::put_scaled(out, i, d, T::from_f64(2.0));
        let e: T = helpers::window_energy(a, i, width);
        energy[i] = e;
    }
}

/// Per-block sums of 64 elements, staged in a static shared array and summed by device
/// functions that take the shared array whole.
#[gpu_kernel]
pub fn block_sums_via_device(x: &[f32], sums: &mut [f32]) {
    let tile = shared_array::<f32, 64>();
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    helpers::stage(tile, x, b * 64, t);
    sync_threads();
    if t == 0 {
        let s: f32 = helpers::tile_sum(tile);
        sums[b] = s;
    }
}

/// The same through the launch's dynamic shared memory (64 floats).
#[gpu_kernel]
pub fn block_sums_dynamic(x: &[f32], sums: &mut [f32]) {
    let tile = dynamic_shared_array::<f32>();
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    helpers::stage(tile, x, b * 64, t);
    sync_threads();
    if t == 0 {
        let s: f32 = helpers::tile_sum(tile);
        sums[b] = s;
    }
}

/// A histogram whose atomics happen inside a device function.
#[gpu_kernel]
pub fn histogram_via_device(values: &[u32], bins: &mut [u32]) {
    let i = grid_1d();
    if i < values.len() {
        helpers::count(bins, values[i] as usize);
    }
}

#[gpu_kernel]
pub fn shade<T: Float>(x: &[T], y: &mut [T]) {
    let i = grid_1d();
    if i < x.len() {
        y[i] =
            helpers::smoothstep(x[i]) + helpers::clamp(x[i], T::from_f64(-0.5), T::from_f64(0.5));
    }
}

#[gpu_kernel]
pub fn collatz(n: &[u64], steps: &mut [u32]) {
    let i = grid_1d();
    if i < n.len() {
        let s = helpers::collatz_steps(n[i], 500);
        steps[i] = s;
    }
}

/// 2-D and 3-D arrays passed whole to device functions: read, written (a kernel's
/// `&mut DeviceArray2` also to a read-only parameter), passed on, and their shapes.
#[gpu_kernel]
pub fn grids_via_device<T: Float>(
    m: &DeviceArray2<T>,
    out: &mut DeviceArray2<T>,
    v: &DeviceArray3<f32>,
    w: &mut DeviceArray3<f32>,
    sums: &mut [f32],
) {
    let (c, r) = grid_2d();
    if r < m.rows() && c < m.cols() {
        out[(r, c)] = helpers::neighbourhood(m, r, c);
        helpers::add_at(out, r, c, helpers::corner(m));
        // The kernel's writable array read through a read-only parameter (2x - x is x).
        let own: T = helpers::at2(out, r, c);
        out[(r, c)] = own * T::from_f64(2.0) - own;
    }
    let (d0, d1, d2) = (v.shape().0, v.shape().1, v.shape().2);
    if r < d0 && c < d1 {
        sums[r * d1 + c] = helpers::depth_sum(v, r, c);
        for k in 0..d2 {
            helpers::put3(w, r, c, k, v[(r, c, k)] * 2.0);
        }
    }
}

/// `out[i] = m[(i / cols, i % cols + shift)]` through a device function: past the
/// columns, the violation is the kernel's `m (column)`.
#[gpu_kernel]
pub fn grid_window(m: &DeviceArray2<f32>, out: &mut [f32], shift: usize) {
    let i = grid_1d();
    if i < out.len() {
        let x: f32 = helpers::at2(m, i / m.cols(), i % m.cols() + shift);
        out[i] = x;
    }
}

/// The GPU (or the simulator) against a host reference of `grids_via_device`.
pub fn case_device_arrays(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (rows, cols) = (r.random_range(1..40), r.random_range(1..40));
    let m: Vec<f64> = (0..rows * cols)
        .map(|_| r.random_range(-1.0..1.0))
        .collect();
    let shape3 = (
        r.random_range(1..9),
        r.random_range(1..9),
        r.random_range(1..9),
    );
    let n3 = shape3.0 * shape3.1 * shape3.2;
    let v: Vec<f32> = (0..n3).map(|_| r.random_range(-1.0..1.0)).collect();
    let dm = dev.to_device_2d(&m, (rows, cols))?;
    let mut dout = dev.to_device_2d(&vec![f64::NAN; rows * cols], (rows, cols))?;
    let dv = dev.to_device_3d(&v, shape3)?;
    let mut dw = dev.to_device_3d(&vec![f32::NAN; n3], shape3)?;
    let mut dsums = poisoned(dev, shape3.0 * shape3.1, f32::NAN)?;
    let (bx, by) = (
        cols.max(shape3.1).div_ceil(8),
        rows.max(shape3.0).div_ceil(8),
    );
    launch!(grids_via_device[(bx, by), (8, 8)](&dm, &mut dout, &dv, &mut dw, &mut dsums))?;

    let at = |i: usize, j: usize| m[i * cols + j];
    let hood = |i: usize, j: usize| {
        let mut s = at(i, j);
        let mut n = 1.0;
        for (di, dj, ok) in [
            (-1i64, 0i64, i > 0),
            (1, 0, i + 1 < rows),
            (0, -1, j > 0),
            (0, 1, j + 1 < cols),
        ] {
            if ok {
                s += at((i as i64 + di) as usize, (j as i64 + dj) as usize);
                n += 1.0;
            }
        }
        s / n
    };
    let corner = hood(0, 0);
    let want: Vec<f64> = (0..rows * cols)
        .map(|k| hood(k / cols, k % cols) + corner)
        .collect();
    check(
        &mut out,
        "2-D through device functions",
        &dout.to_host()?,
        &want,
        1e-12,
    )?;
    let want_sums: Vec<f32> = (0..shape3.0 * shape3.1)
        .map(|ij| {
            let (i, j) = (ij / shape3.1, ij % shape3.1);
            (0..shape3.2)
                .map(|k| v[(i * shape3.1 + j) * shape3.2 + k])
                .sum()
        })
        .collect();
    check(
        &mut out,
        "3-D depth sums",
        &dsums.to_host()?,
        &want_sums,
        1e-5,
    )?;
    let want_w: Vec<f32> = v.iter().map(|x| x * 2.0).collect();
    check(&mut out, "3-D writes", &dw.to_host()?, &want_w, 0.0)?;

    // Past the columns inside the device function: the kernel's array and axis.
    let mf: Vec<f32> = m.iter().map(|&x| x as f32).collect();
    let dmf = dev.to_device_2d(&mf, (rows, cols))?;
    let mut win = poisoned(dev, rows * cols, f32::NAN)?;
    let n = rows * cols;
    launch!(grid_window[blocks(n, 64), 64](&dmf, &mut win, 0usize))?;
    check(&mut out, "grid_window", &win.to_host()?, &mf, 0.0)?;
    let launched = launch!(grid_window[blocks(n, 64), 64](&dmf, &mut win, 1usize));
    match launched.and_then(|()| dev.synchronize()) {
        Err(GpuError::OutOfBounds {
            kernel: "grid_window",
            param,
            index,
            len,
        }) if param == "m (column)" && index == cols && len == cols => {}
        other => {
            return Err(format!(
                "grid_window past the columns: expected m (column)[{cols}] of {cols}, got {other:?}"
            )
            .into())
        }
    }
    Ok(out)
}

fn smoothstep_ref(x: f64) -> f64 {
    let t = x.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

pub fn case_device(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1_000..5_000);
    let x: Vec<f64> = (0..n).map(|_| r.random_range(-1.5..1.5)).collect();
    let dx = dev.to_device(&x)?;
    let mut dy = poisoned(dev, n, f64::NAN)?;
    launch!(shade[blocks(n, 128), 128](&dx, &mut dy))?;
    let want: Vec<f64> = x
        .iter()
        .map(|&v| smoothstep_ref(v) + v.clamp(-0.5, 0.5))
        .collect();
    check(&mut out, "f64", &dy.to_host()?, &want, 1e-15)?;
    let xf: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let dxf = dev.to_device(&xf)?;
    let mut dyf = poisoned(dev, n, f32::NAN)?;
    launch!(shade[blocks(n, 128), 128](&dxf, &mut dyf))?;
    let want: Vec<f32> = xf
        .iter()
        .map(|&v| (smoothstep_ref(v as f64) + (v as f64).clamp(-0.5, 0.5)) as f32)
        .collect();
    check(&mut out, "f32", &dyf.to_host()?, &want, 1e-6)?;

    let starts: Vec<u64> = (0..n).map(|_| r.random_range(1..100_000)).collect();
    let ds = dev.to_device(&starts)?;
    let mut dsteps = poisoned(dev, n, u32::MAX)?;
    launch!(collatz[blocks(n, 128), 128](&ds, &mut dsteps))?;
    let want: Vec<u32> = starts
        .iter()
        .map(|&s| helpers::collatz_steps(s, 500))
        .collect();
    check(&mut out, "collatz", &dsteps.to_host()?, &want, 0.0)?;

    // Whole arrays into device functions; the CPU reference calls the same functions on
    // host slices.
    let width = r.random_range(1..9);
    let b: Vec<f64> = (0..n).map(|_| r.random_range(-2.0..2.0)).collect();
    let db = dev.to_device(&b)?;
    let (mut dw, mut de) = (poisoned(dev, n, f64::NAN)?, poisoned(dev, n, f64::NAN)?);
    launch!(windows[blocks(n, 128), 128](&dx, &db, &mut dw, &mut de, width))?;
    let mut want = vec![0.0f64; n];
    for (i, w) in want.iter_mut().enumerate() {
        let d = helpers::window_dot(&x[..], &b[..], i, width);
        helpers::put_scaled(std::slice::from_mut(w), 0, d, 2.0);
    }
    let energy: Vec<f64> = (0..n)
        .map(|i| (i..(i + width).min(n)).map(|k| x[k] * x[k]).sum())
        .collect();
    check(&mut out, "window_dot", &dw.to_host()?, &want, 1e-12)?;
    check(&mut out, "window_energy", &de.to_host()?, &energy, 1e-12)?;

    let values: Vec<u32> = (0..n).map(|_| r.random_range(0..1_000)).collect();
    let nbins = r.random_range(1..64);
    let dv = dev.to_device(&values)?;
    let mut dbins = dev.zeros::<u32>(nbins)?;
    launch!(histogram_via_device[blocks(n, 128), 128](&dv, &mut dbins))?;
    let mut want = vec![0u32; nbins];
    for &v in &values {
        want[v as usize % nbins] += 1;
    }
    check(
        &mut out,
        "histogram_via_device",
        &dbins.to_host()?,
        &want,
        0.0,
    )?;

    // Shared arrays, static and dynamic, passed whole to device functions.
    let xs: Vec<f32> = x.iter().map(|&v| v as f32).collect();
    let nb = n.div_ceil(64);
    let want: Vec<f32> = (0..nb)
        .map(|b| {
            let mut s = 0.0f32;
            for k in 0..64 {
                s += xs.get(b * 64 + k).copied().unwrap_or(0.0);
            }
            s
        })
        .collect();
    let dxs = dev.to_device(&xs)?;
    let mut sums = poisoned(dev, nb, f32::NAN)?;
    launch!(block_sums_via_device[nb, 64](&dxs, &mut sums))?;
    check(&mut out, "shared via device", &sums.to_host()?, &want, 0.0)?;
    let stream = dev.new_stream()?;
    let mut sums = poisoned(dev, nb, f32::NAN)?;
    launch!(block_sums_dynamic[nb, 64, &stream, 64 * 4](&dxs, &mut sums))?;
    check(
        &mut out,
        "dynamic shared via device",
        &sums.to_host()?,
        &want,
        0.0,
    )?;
    Ok(out)
}

/// Two values in order.
#[gpu_device]
pub fn min_max(a: f32, b: f32) -> (f32, f32) {
    if a < b {
        return (a, b);
    }
    (b, a)
}

/// Another device function's tuple, returned as it is.
#[gpu_device]
pub fn relay(a: f32, b: f32) -> (f32, f32) {
    return min_max(a, b);
}

/// Quotient, remainder and whether the division is exact.
#[gpu_device]
pub fn div_rem(a: u32, b: u32) -> (u32, u32, bool) {
    (a / b, a % b, a % b == 0)
}

/// The pair in order, for any number type.
#[gpu_device]
pub fn sorted_pair<T: Num>(a: T, b: T) -> (T, T) {
    if b < a {
        (b, a)
    } else {
        (a, b)
    }
}

/// Device functions returning tuples, bound by `let (a, b) = f(..)` (annotated or not),
/// read with `.1`, and returned on from another device function.
#[gpu_kernel]
pub fn tuples_from_device(
    x: &[f32],
    y: &[f32],
    n: &[u32],
    lo: &mut [f32],
    hi: &mut [f32],
    q: &mut [u32],
) {
    let i = grid_1d();
    if i < x.len() {
        let (a, b) = min_max(x[i], y[i]);
        lo[i] = a;
        hi[i] = relay(b, a).1 + 1.0;
        let (quot, rem, exact): (u32, u32, bool) = div_rem(n[i], 7);
        let (_, big) = sorted_pair(n[i], 5u32);
        q[i] = quot * 10 + rem + if exact { 1000 } else { 0 } + big * 100000;
    }
}

pub fn case_device_tuples(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let len = r.random_range(1..3000);
    let x = uniform_f32(&mut r, len, -10.0, 10.0);
    let mut y = uniform_f32(&mut r, len, -10.0, 10.0);
    y[0] = x[0];
    let n: Vec<u32> = (0..len).map(|_| r.random_range(0..2000)).collect();
    let (dx, dy, dn) = (dev.to_device(&x)?, dev.to_device(&y)?, dev.to_device(&n)?);
    let mut lo = poisoned(dev, len, f32::NAN)?;
    let mut hi = poisoned(dev, len, f32::NAN)?;
    let mut q = poisoned(dev, len, u32::MAX)?;
    launch!(tuples_from_device[blocks(len, 128), 128](&dx, &dy, &dn, &mut lo, &mut hi, &mut q))?;
    let want_lo: Vec<f32> = (0..len).map(|i| min_max(x[i], y[i]).0).collect();
    let want_hi: Vec<f32> = (0..len).map(|i| relay(y[i], x[i]).1 + 1.0).collect();
    let want_q: Vec<u32> = (0..len)
        .map(|i| {
            let (quot, rem, exact) = div_rem(n[i], 7);
            quot * 10 + rem + if exact { 1000 } else { 0 } + sorted_pair(n[i], 5).1 * 100000
        })
        .collect();
    check(&mut out, "lo", &lo.to_host()?, &want_lo, 0.0)?;
    check(&mut out, "hi", &hi.to_host()?, &want_hi, 0.0)?;
    check(&mut out, "q", &q.to_host()?, &want_q, 0.0)?;
    Ok(out)
}

/// The larger of `a` and `b`, written against Rust's traits beside the dtype bound.
#[gpu_device]
pub fn larger<T: Num + PartialOrd + Copy + core::fmt::Debug>(a: T, b: T) -> T {
    if a > b {
        a
    } else {
        b
    }
}

/// `a * b + a` through `Mul<Output = T>` and `Add<Output = T>` bounds in a `where` clause.
#[gpu_device]
pub fn scaled_sum<T>(a: T, b: T) -> T
where
    T: Num + core::ops::Mul<Output = T> + std::ops::Add<Output = T> + Clone,
{
    a * b + a
}

/// `out[i] = larger(x[i], y[i]) + scaled_sum(x[i], y[i])` and `k[i] = larger(m[i], 7)`,
/// for every float and integer dtype; the bounds in a `where` clause.
#[gpu_kernel(fmad = false)]
pub fn standard_bounds<T, I>(x: &[T], y: &[T], m: &[I], out: &mut [T], k: &mut [I])
where
    T: Float + PartialOrd + Copy + Send + Sync + 'static,
    I: Int + Ord + Eq + core::ops::BitXor<Output = I>,
{
    let i = grid_1d();
    if i < x.len() && i < y.len() && i < out.len() && i < m.len() && i < k.len() {
        out[i] = larger(x[i], y[i]) + scaled_sum(x[i], y[i]);
        k[i] = larger(m[i], I::from_i32(7)) ^ I::from_i32(1);
    }
}

pub fn case_standard_bounds(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let len = r.random_range(1..3000);
    let x: Vec<f64> = (0..len).map(|_| r.random_range(-10.0..10.0)).collect();
    let y: Vec<f64> = (0..len).map(|_| r.random_range(-10.0..10.0)).collect();
    let m: Vec<i16> = (0..len).map(|_| r.random_range(-100..100)).collect();
    let (dx, dy, dm) = (dev.to_device(&x)?, dev.to_device(&y)?, dev.to_device(&m)?);
    let mut got = poisoned(dev, len, f64::NAN)?;
    let mut k = poisoned(dev, len, i16::MIN)?;
    launch!(standard_bounds[blocks(len, 128), 128](&dx, &dy, &dm, &mut got, &mut k))?;
    let want: Vec<f64> = (0..len)
        .map(|i| larger(x[i], y[i]) + scaled_sum(x[i], y[i]))
        .collect();
    let want_k: Vec<i16> = (0..len).map(|i| larger(m[i], 7) ^ 1).collect();
    check(&mut out, "out", &got.to_host()?, &want, 0.0)?;
    check(&mut out, "k", &k.to_host()?, &want_k, 0.0)?;
    Ok(out)
}
