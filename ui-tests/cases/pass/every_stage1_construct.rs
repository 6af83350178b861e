use gpu_runtime::prelude::*;

/// A kernel that uses every Stage 1 construct compiles and runs on the simulator.
#[gpu_kernel]
pub fn everything<T: Float>(a: &[T], b: &mut [T], n: usize, flag: bool, k: i32) {
    let i = grid_1d();
    let (x, _y) = grid_2d();
    let stride = gridsize_1d();
    if i >= a.len() || x != i {
        return;
    }
    let mut acc = T::zero();
    for j in (0..n).step_by(2) {
        if j > 10 {
            break;
        }
        acc += a[i] * T::from_usize(j);
    }
    let mut m = k;
    while m > 0 {
        m -= 1;
        if m % 2 == 0 {
            continue;
        }
    }
    loop {
        break;
    }
    let v = if flag { acc.sqrt() } else { -acc };
    let w: f32 = (thread_idx().x as f32 * 0.5).max(1.0);
    b[i] = v.mul_add(T::from_f64(w as f64), T::one()) + T::from_usize(stride % 2) + T::from_i32(m);
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let a = dev.to_device(&[1.0f32, 4.0, 9.0])?;
    let mut b = dev.zeros::<f32>(3)?;
    launch!(everything[1, 32](&a, &mut b, 6usize, true, 3))?;
    let out = b.to_host()?;
    assert!(out.iter().all(|v| v.is_finite()), "{out:?}");
    Ok(())
}
