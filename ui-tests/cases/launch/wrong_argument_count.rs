use gpu_runtime::prelude::*;

#[gpu_kernel]
fn add(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] + b[i];
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let a = dev.zeros::<f32>(4)?;
    let mut c = dev.zeros::<f32>(4)?;
    launch!(add[1, 32](&a, &mut c))?;
    Ok(())
}
