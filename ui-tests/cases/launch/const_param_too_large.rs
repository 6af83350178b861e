use gpu_runtime::prelude::*;

// Shared arrays sized by a const parameter: the launch of a value that does not fit a
// block's 48 KB is refused when rustc makes that instance.
#[gpu_kernel]
fn tiled<const N: usize>(out: &mut [f32]) {
    let mut s = shared_array::<f32, N>();
    let i = thread_idx().x as usize;
    if i < N && i < out.len() {
        s[i] = 1.0;
        out[i] = s[i];
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;
    let mut out = dev.zeros::<f32>(16)?;
    launch!(tiled::<64>[1, 16](&mut out))?;
    launch!(tiled::<100000>[1, 16](&mut out))?;
    Ok(())
}
