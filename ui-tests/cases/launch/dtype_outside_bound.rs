use gpu_runtime::prelude::*;

#[gpu_kernel]
fn scale<T: Float>(a: &mut [T], s: T) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i] * s;
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut a = dev.zeros::<i32>(4)?;
    launch!(scale[1, 32](&mut a, 2))?;
    Ok(())
}
