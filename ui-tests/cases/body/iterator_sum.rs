use gpu_runtime::prelude::*;

#[gpu_kernel]
fn total(a: &[f32], out: &mut [f32]) {
    let s: f32 = a.iter().sum();
    out[0] = s;
}

fn main() -> Result<(), GpuError> {
    // The launch reports nothing more.
    let dev = Device::simulator();
    let a = dev.to_device(&[1.0f32])?;
    let mut out = dev.zeros::<f32>(1)?;
    launch!(total[1, 1](&a, &mut out))?;
    Ok(())
}
