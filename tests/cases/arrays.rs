//! Arrays beyond 1-D slices: vector loads and stores, 2-D and 3-D parameters.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// vec_add four elements at a time; the last thread adds the tail one by one.
#[gpu_kernel]
pub fn vec_add4<T: Num>(a: &[T], b: &[T], c: &mut [T]) {
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

pub fn case_vector(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let n = r.random_range(1_000..50_000);
    let a = uniform_f32(&mut r, n, -100.0, 100.0);
    let b = uniform_f32(&mut r, n, -100.0, 100.0);
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = poisoned(dev, n, f32::NAN)?;
    launch!(vec_add4.forall(n / 4 + 1)(&da, &db, &mut dc))?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(&mut out, "f32", &dc.to_host()?, &want, 0.0)?;
    let a: Vec<i64> = (0..n)
        .map(|_| r.random_range(-1_000_000..1_000_000))
        .collect();
    let b: Vec<i64> = (0..n)
        .map(|_| r.random_range(-1_000_000..1_000_000))
        .collect();
    let (da, db) = (dev.to_device(&a)?, dev.to_device(&b)?);
    let mut dc = poisoned(dev, n, i64::MIN)?;
    launch!(vec_add4.forall(n / 4 + 1)(&da, &db, &mut dc))?;
    let want: Vec<i64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let got = dc.to_host()?;
    if got != want {
        return Err("i64 vector add differs".into());
    }
    out.push(("i64", got.iter().map(|&v| v as f64).collect()));
    Ok(out)
}

/// A 5-point average on 2-D arrays, and per-column sums through 2-D atomics.
#[gpu_kernel]
pub fn smooth2d(u: &DeviceArray2<f32>, out: &mut DeviceArray2<f32>, sums: &mut DeviceArray2<f32>) {
    let (j, i) = grid_2d();
    let (rows, cols) = u.shape();
    if i < rows && j < cols {
        let mut acc = u[(i, j)];
        let mut n = 1.0f32;
        if i > 0 {
            acc += u[(i - 1, j)];
            n += 1.0;
        }
        if i + 1 < rows {
            acc += u[(i + 1, j)];
            n += 1.0;
        }
        if j > 0 {
            acc += u[(i, j - 1)];
            n += 1.0;
        }
        if j + 1 < cols {
            acc += u[(i, j + 1)];
            n += 1.0;
        }
        out[(i, j)] = acc / n;
        atomic_add(sums, (0, j), u[(i, j)]);
    }
}

pub fn case_array2(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let (rows, cols) = (r.random_range(5..60), r.random_range(5..60));
    // Multiples of 1/16, so the atomic column sums are exact in any order.
    let u: Vec<f32> = (0..rows * cols)
        .map(|_| r.random_range(-160..160) as f32 / 16.0)
        .collect();
    let du = dev.to_device_2d(&u, (rows, cols))?;
    let mut dout = dev.to_device_2d(&vec![f32::NAN; rows * cols], (rows, cols))?;
    let mut dsums = dev.zeros_2d::<f32>((1, cols))?;
    launch!(smooth2d[(cols.div_ceil(8), rows.div_ceil(8)), (8, 8)](&du, &mut dout, &mut dsums))?;
    let at = |i: usize, j: usize| u[i * cols + j];
    let mut want = Vec::new();
    for i in 0..rows {
        for j in 0..cols {
            let mut acc = at(i, j);
            let mut n = 1.0f32;
            if i > 0 {
                acc += at(i - 1, j);
                n += 1.0;
            }
            if i + 1 < rows {
                acc += at(i + 1, j);
                n += 1.0;
            }
            if j > 0 {
                acc += at(i, j - 1);
                n += 1.0;
            }
            if j + 1 < cols {
                acc += at(i, j + 1);
                n += 1.0;
            }
            want.push(acc / n);
        }
    }
    check(&mut out, "smooth", &dout.to_host()?, &want, 0.0)?;
    let sums: Vec<f32> = (0..cols)
        .map(|j| (0..rows).map(|i| at(i, j)).sum())
        .collect();
    check(&mut out, "column sums", &dsums.to_host()?, &sums, 0.0)?;
    Ok(out)
}

/// A 3-D neighbour difference along the last axis, on 3-D arrays with a 3-D grid.
#[gpu_kernel]
pub fn diff3d(v: &DeviceArray3<f64>, out: &mut DeviceArray3<f64>) {
    let (k, j, i) = grid_3d();
    let (d0, d1, d2) = v.shape();
    // The parts one at a time, and the element count, agree with the tuple.
    if v.shape().1 != d1 || v.len() != d0 * d1 * d2 || out.len() != v.len() {
        return;
    }
    if i < d0 && j < d1 && k < d2 {
        let next = if k + 1 < d2 { v[(i, j, k + 1)] } else { 0.0 };
        out[(i, j, k)] = next - v[(i, j, k)] + (v.len() as f64) * 0.0;
    }
}

pub fn case_array3(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let shape = (
        r.random_range(2..9),
        r.random_range(2..9),
        r.random_range(2..20),
    );
    let n = shape.0 * shape.1 * shape.2;
    let v: Vec<f64> = (0..n).map(|_| r.random_range(-1.0..1.0)).collect();
    let dv = dev.to_device_3d(&v, shape)?;
    let mut d = dev.to_device_3d(&vec![f64::NAN; n], shape)?;
    let grid = (
        shape.2.div_ceil(4),
        shape.1.div_ceil(4),
        shape.0.div_ceil(2),
    );
    launch!(diff3d[grid, (4, 4, 2)](&dv, &mut d))?;
    let mut want = Vec::new();
    for i in 0..shape.0 {
        for j in 0..shape.1 {
            for k in 0..shape.2 {
                let at = |k: usize| v[(i * shape.1 + j) * shape.2 + k];
                let next = if k + 1 < shape.2 { at(k + 1) } else { 0.0 };
                want.push(next - at(k));
            }
        }
    }
    check(&mut out, "diff", &d.to_host()?, &want, 0.0)?;
    Ok(out)
}
