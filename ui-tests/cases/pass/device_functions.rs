use gpu_runtime::prelude::*;

mod math {
    use gpu_runtime::prelude::*;

    #[gpu_device]
    pub fn square<T: Num>(x: T) -> T {
        x * x
    }
}

#[gpu_device]
fn hypot2<T: Float>(x: T, y: T) -> T {
    math::square(x) + math::square(y)
}

#[gpu_kernel]
fn norms(x: &[f32], y: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        out[i] = hypot2(x[i], y[i]).sqrt();
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let x = dev.to_device(&[3.0f32, 5.0])?;
    let y = dev.to_device(&[4.0f32, 12.0])?;
    let mut out = dev.zeros::<f32>(2)?;
    launch!(norms[1, 32](&x, &y, &mut out))?;
    assert_eq!(out.to_host()?, vec![5.0, 13.0]);
    // Device functions stay host functions.
    assert_eq!(hypot2(6.0f64, 8.0), 100.0);
    assert!(norms::definition().specialize(&[]).unwrap().contains("gt_dev_square"));
    Ok(())
}
