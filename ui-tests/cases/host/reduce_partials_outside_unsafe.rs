// The hidden helper that hands out a reduction's uninitialised partials is `unsafe`: safe
// code cannot get device memory whose bytes need not be valid `bool`s.
use gpu_runtime::prelude::*;

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let partials = gpu_runtime::__private::reduce_partials::<bool>(&dev, 16)?;
    let _ = partials.len();
    Ok(())
}
