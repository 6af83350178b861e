use gpu_runtime::prelude::*;

#[gpu_kernel]
fn first(a: &[f32]) -> f32 {
    a[0]
}

fn main() -> Result<(), GpuError> {
    // The launch reports nothing more: the launcher exists, from the parameters.
    let dev = Device::simulator();
    let a = dev.to_device(&[1.0f32])?;
    launch!(first[1, 1](&a))?;
    Ok(())
}
