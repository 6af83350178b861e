//! Const generic kernel parameters: a tiled matrix product whose tile is `const TILE:
//! usize` (shared arrays, loop bounds, arithmetic), launched with two tiles; and a kernel
//! whose const parameters of three types sit among a dtype parameter in the written order
//! (a local array's length, a signed factor, a `bool` switch), launched with two sets of
//! values. Each instance is its own compiled kernel: the values reach the C as constants.

use gpu_runtime::def::KernelDef;
use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// `c = a * b`, tile by tile through shared memory, the tile `TILE x TILE` threads.
#[gpu_kernel]
pub fn tiled_matmul<T: Float, const TILE: usize>(
    a: &DeviceArray2<T>,
    b: &DeviceArray2<T>,
    c: &mut DeviceArray2<T>,
) {
    let mut sa = shared_array_2d::<T, TILE, TILE>();
    let mut sb = shared_array_2d::<T, TILE, TILE>();
    let (x, y) = grid_2d();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let mut acc = T::from_f64(0.0);
    for t in 0..(a.cols() + TILE - 1) / TILE {
        sa[(ty, tx)] = T::from_f64(0.0);
        sb[(ty, tx)] = T::from_f64(0.0);
        if y < a.rows() && t * TILE + tx < a.cols() {
            sa[(ty, tx)] = a[(y, t * TILE + tx)];
        }
        if x < b.cols() && t * TILE + ty < b.rows() {
            sb[(ty, tx)] = b[(t * TILE + ty, x)];
        }
        sync_threads();
        for j in 0..TILE {
            acc += sa[(ty, j)] * sb[(j, tx)];
        }
        sync_threads();
    }
    if y < c.rows() && x < c.cols() {
        c[(y, x)] = acc;
    }
}

/// `out[i] = FACTOR * (x[i] + .. + x[i + W - 1])` through a local array of `W` values,
/// negated when `FLIP`; the const parameters around the dtype one, as written.
#[gpu_kernel]
pub fn windows<const W: usize, T: Float, const FACTOR: i32, const FLIP: bool>(
    x: &[T],
    out: &mut [T],
) {
    let i = grid_1d();
    if i + W <= x.len() && i < out.len() {
        let mut window = [T::from_f64(0.0); W];
        for k in 0..W {
            window[k] = x[i + k];
        }
        let mut s = T::from_f64(0.0);
        for k in 0..window.len() {
            s += window[k];
        }
        let v = s * T::from_f64(FACTOR as f64);
        out[i] = if FLIP { -v } else { v };
    }
}

/// The instances the NVRTC suite compiles.
pub mod tiled_8 {
    pub fn definition() -> &'static super::KernelDef {
        super::tiled_matmul::definition::<8>()
    }
}
pub mod tiled_16 {
    pub fn definition() -> &'static super::KernelDef {
        super::tiled_matmul::definition::<16>()
    }
}
pub mod windows_3 {
    pub fn definition() -> &'static super::KernelDef {
        super::windows::definition::<3, -2, true>()
    }
}
pub mod windows_5 {
    pub fn definition() -> &'static super::KernelDef {
        super::windows::definition::<5, 7, false>()
    }
}
pub mod windows_chosen {
    pub fn definition() -> &'static super::KernelDef {
        super::windows::definition::<5, 1, false>()
    }
}

fn matmul_reference(a: &[f64], b: &[f64], (m, k, n): (usize, usize, usize)) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

pub fn case_tiled_matmul(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    // Ragged sizes: no multiple of either tile.
    let (m, k, n) = (
        r.random_range(20..70),
        r.random_range(20..70),
        r.random_range(20..70),
    );
    let a = uniform_f64(&mut r, m * k, -1.0, 1.0);
    let b = uniform_f64(&mut r, k * n, -1.0, 1.0);
    let want = matmul_reference(&a, &b, (m, k, n));
    let (da, db) = (dev.to_device_2d(&a, (m, k))?, dev.to_device_2d(&b, (k, n))?);
    let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
    let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
    let (da32, db32) = (
        dev.to_device_2d(&a32, (m, k))?,
        dev.to_device_2d(&b32, (k, n))?,
    );
    let mut c = dev.to_device_2d(&vec![f64::NAN; m * n], (m, n))?;
    launch!(tiled_matmul::<_, 8>[(n.div_ceil(8), m.div_ceil(8)), (8, 8)](&da, &db, &mut c))?;
    check(&mut out, "c_f64_tile8", &c.to_host()?, &want, 1e-12)?;
    let mut c = dev.to_device_2d(&vec![f64::NAN; m * n], (m, n))?;
    launch!(tiled_matmul::<_, 16>[(n.div_ceil(16), m.div_ceil(16)), (16, 16)](
        &da, &db, &mut c
    ))?;
    check(&mut out, "c_f64_tile16", &c.to_host()?, &want, 1e-12)?;
    let mut c = dev.to_device_2d(&vec![f32::NAN; m * n], (m, n))?;
    launch!(tiled_matmul::<f32, 16>[(n.div_ceil(16), m.div_ceil(16)), (16, 16)](
        &da32, &db32, &mut c
    ))?;
    check(&mut out, "c_f32_tile16", &f64s(&c.to_host()?), &want, 1e-5)?;
    // A block of the wrong shape for the tile reads outside the shared tile: an
    // out-of-bounds fault on both backends, never another tile's memory.
    let mut c = dev.to_device_2d(&vec![f64::NAN; m * n], (m, n))?;
    let wrong = launch!(tiled_matmul::<_, 8>[(1, 1), (16, 16)](&da, &db, &mut c))
        .and_then(|()| dev.synchronize());
    match wrong {
        Err(GpuError::OutOfBounds { .. }) => {}
        other => return Err(format!("a 16x16 block on 8x8 tiles gave {other:?}").into()),
    }
    Ok(out)
}

pub fn case_const_param_kinds(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let len = r.random_range(300..900);
    let x = uniform_f32(&mut r, len, -2.0, 2.0);
    let dx = dev.to_device(&x)?;
    let reference = |w: usize, factor: i32, flip: bool| -> Vec<f32> {
        (0..len)
            .map(|i| {
                if i + w > len {
                    return f32::NAN;
                }
                let s = x[i..i + w].iter().fold(0.0f32, |s, &v| s + v);
                let v = s * factor as f32;
                if flip {
                    -v
                } else {
                    v
                }
            })
            .collect()
    };
    let mut y = poisoned(dev, len, f32::NAN)?;
    launch!(windows::<3, _, { -2 }, true>[blocks(len, 128), 128](&dx, &mut y))?;
    check(&mut out, "w3", &y.to_host()?, &reference(3, -2, true), 0.0)?;
    let mut y = poisoned(dev, len, f32::NAN)?;
    launch!(windows::<5, f32, 7, false>.forall(len)(&dx, &mut y))?;
    check(&mut out, "w5", &y.to_host()?, &reference(5, 7, false), 0.0)?;
    // A value chosen at run time from a fixed set: one launch per instance.
    let w = [3, 5][r.random_range(0..2)];
    let mut y = poisoned(dev, len, f32::NAN)?;
    match w {
        3 => launch!(windows::<3, _, 1, false>[blocks(len, 64), 64](&dx, &mut y))?,
        _ => launch!(windows::<5, _, 1, false>[blocks(len, 64), 64](&dx, &mut y))?,
    }
    check(
        &mut out,
        "chosen",
        &y.to_host()?,
        &reference(w, 1, false),
        0.0,
    )?;

    // Each set of values is one definition, made once, named with its values.
    let (three, five) = (windows_3::definition(), windows_5::definition());
    if !std::ptr::eq(three, windows::definition::<3, -2, true>()) || std::ptr::eq(three, five) {
        return Err("an instance is not one definition per set of values".into());
    }
    let shown = three.signature(&[gpu_runtime::def::DtypeKind::F32]);
    if shown != "windows::<3, f32, -2, true>" || three.const_values() != [3, -2, 1] {
        return Err(format!("instance shown as {shown}, {:?}", three.const_values()).into());
    }
    // The generic definition (hidden, but reachable) names no values: it cannot compile.
    match windows::__DEF.specialize(&[gpu_runtime::def::DtypeKind::F32]) {
        Err(GpuError::InvalidArgument(m)) if m.contains("generic definition") => {}
        other => return Err(format!("the generic definition specialised: {other:?}").into()),
    }
    let names: Vec<&str> = three.const_params().iter().map(|p| p.name).collect();
    if names != ["W", "FACTOR", "FLIP"] {
        return Err(format!("const parameters {names:?}").into());
    }
    Ok(out)
}
