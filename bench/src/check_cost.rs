//! P11: what index checks cost. Each benchmark kernel runs as written (checked, the
//! default) and `unchecked` on the same arguments, interleaved round by round in one
//! process; the figure is checked speed / unchecked speed (1.0 = free).

use gpu_runtime::prelude::*;

use crate::kernels::*;
use crate::{event_ms, median};

/// Times `launch(true)` (checked) and `launch(false)` (unchecked) alternately over
/// `rounds` rounds of `reps` calls and prints `check_cost_<name> <ratio>` and both medians.
fn compare(
    dev: &Device,
    name: &str,
    rounds: usize,
    reps: usize,
    mut launch: impl FnMut(bool) -> Result<(), GpuError>,
) -> Result<(), GpuError> {
    // The checked kernel runs first and must not fault: the unchecked one then makes
    // exactly the same accesses, all in range.
    launch(true)?;
    dev.synchronize()?;
    let (mut c, mut u) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        c.push(event_ms(dev, reps, || launch(true))?);
        u.push(event_ms(dev, reps, || launch(false))?);
    }
    let (c, u) = (median(&mut c), median(&mut u));
    println!("check_cost_{name} {:.3}", u / c);
    println!("check_cost_{name}_ms {c:.4} {u:.4}");
    Ok(())
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::cuda(0)?;
    let n: usize = 1 << 28;
    let a = dev.to_device(&(0..n).map(|i| (i % 1013) as f32 * 0.5).collect::<Vec<_>>())?;
    let b = dev.to_device(&(0..n).map(|i| (i % 977) as f32 * 0.25).collect::<Vec<_>>())?;
    let mut c = dev.zeros::<f32>(n)?;
    // SAFETY (every unchecked launch below): `compare` first runs the checked twin on the
    // same arguments and returns its fault, if any, before the unchecked one runs.
    compare(&dev, "vec_add", 7, 20, |checked| {
        if checked {
            launch!(vec_add.forall(n)(&a, &b, &mut c))
        } else {
            unsafe { launch!(vec_add_unchecked.forall(n)(&a, &b, &mut c)) }
        }
    })?;
    let mut y = dev.zeros::<f32>(n)?;
    compare(&dev, "saxpy", 7, 20, |checked| {
        if checked {
            launch!(saxpy.forall(n)(0.5f32, &a, &mut y))
        } else {
            unsafe { launch!(saxpy_unchecked.forall(n)(0.5f32, &a, &mut y)) }
        }
    })?;
    compare(&dev, "vec_add4", 7, 20, |checked| {
        if checked {
            launch!(vec_add4.forall(n / 4 + 1)(&a, &b, &mut c))
        } else {
            unsafe { launch!(vec_add4_unchecked.forall(n / 4 + 1)(&a, &b, &mut c)) }
        }
    })?;
    let blocks = 132 * 8;
    let mut partial = dev.zeros::<f32>(blocks)?;
    let mut total = dev.zeros::<f32>(1)?;
    compare(&dev, "reduce", 7, 20, |checked| {
        if checked {
            launch!(sum_partials[blocks, 256](&a, &mut partial))?;
            launch!(sum_partials[1, 256](&partial, &mut total))
        } else {
            unsafe {
                launch!(sum_partials_unchecked[blocks, 256](&a, &mut partial))?;
                launch!(sum_partials_unchecked[1, 256](&partial, &mut total))
            }
        }
    })?;
    drop((a, b, c, y));
    let s = 4096usize;
    let ma = dev.to_device(
        &(0..s * s)
            .map(|i| (i % 1009) as f32 / 512.0)
            .collect::<Vec<_>>(),
    )?;
    let mb = dev.to_device(
        &(0..s * s)
            .map(|i| (i % 997) as f32 / 512.0)
            .collect::<Vec<_>>(),
    )?;
    let mut mc = dev.zeros::<f32>(s * s)?;
    let tiles = ((s / 16) as u32, (s / 16) as u32);
    compare(&dev, "matmul_tiled", 5, 3, |checked| {
        if checked {
            launch!(matmul_tiled[tiles, (16, 16)](&ma, &mb, &mut mc, s, s, s))
        } else {
            unsafe { launch!(matmul_tiled_unchecked[tiles, (16, 16)](&ma, &mb, &mut mc, s, s, s)) }
        }
    })?;
    let blocks2 = ((s / 128) as u32, (s / 128) as u32);
    compare(&dev, "sgemm", 5, 5, |checked| {
        if checked {
            launch!(sgemm_vectors[blocks2, 256](&ma, &mb, &mut mc, s, s, s))
        } else {
            unsafe { launch!(sgemm_vectors_unchecked[blocks2, 256](&ma, &mb, &mut mc, s, s, s)) }
        }
    })?;
    Ok(())
}
