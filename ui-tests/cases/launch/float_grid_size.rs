use gpu_runtime::prelude::*;

#[gpu_kernel]
fn fill(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = 1.0;
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut a = dev.zeros::<f32>(4)?;
    launch!(fill[1.5, 32](&mut a))?;
    Ok(())
}
