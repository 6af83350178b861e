use gpu_runtime::prelude::*;

// An `unchecked` kernel's launcher is an `unsafe fn`: its launch is written in `unsafe`.
#[gpu_kernel(unchecked)]
fn fill(a: &mut [f32]) {
    let i = grid_1d();
    a[i] = 1.0;
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut a = dev.zeros::<f32>(64)?;
    launch!(fill[1, 64](&mut a))?;
    Ok(())
}
