use gpu_runtime::prelude::*;

// A 2-D array's extents must describe its buffer, so nothing hands out `&mut` to the
// buffer: it cannot be swapped for one of another size.
fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut m = dev.zeros_2d::<f32>((64, 256))?;
    *m.flat_mut() = dev.zeros(1)?;
    Ok(())
}
