use gpu_runtime::prelude::*;

#[gpu_kernel]
fn scale(a: &mut [f32], s: f32) {
    let i = grid_1d();
    if i < a.len() {
        a[i] *= s;
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut a = dev.zeros::<f32>(4)?;
    launch!(scale[1, 32](&mut a, 2.0f64))?;
    Ok(())
}
