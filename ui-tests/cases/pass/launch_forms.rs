use gpu_runtime::prelude::*;

#[gpu_kernel]
fn fill(out: &mut [u32], value: u32) {
    let (x, y) = grid_2d();
    let width = gridsize_2d().0;
    let i = y * width + x;
    if i < out.len() {
        out[i] = value;
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let stream = dev.new_stream()?;
    let mut out = dev.zeros::<u32>(64)?;
    launch!(fill[1, 64](&mut out, 1))?;
    launch!(fill[(2, 2), (4, 4)](&mut out, 2))?;
    launch!(fill[(1, 1, 1), (8, 8, 1), &stream](&mut out, 3))?;
    launch!(fill[1, 64, &stream, 0](&mut out, 4))?;
    fill(LaunchConfig::new(1usize, 64u32), &mut out, 5)?;
    assert!(out.to_host()?.iter().all(|&v| v == 5));
    Ok(())
}
