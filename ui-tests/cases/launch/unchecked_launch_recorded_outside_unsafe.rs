use gpu_runtime::prelude::*;

// Recording an `unchecked` kernel in a graph is its launch, written in `unsafe` as anywhere.
#[gpu_kernel(unchecked)]
fn fill(a: &mut [f32]) {
    let i = grid_1d();
    a[i] = 1.0;
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut a = dev.zeros::<f32>(64)?;
    let graph = dev.capture(|s| launch!(fill[1, 64, s](&mut a)))?;
    // A graph holding it replays only through `unsafe`, too.
    graph.launch_unchecked(&dev.new_stream()?)?;
    Ok(())
}
