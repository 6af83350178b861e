use gpu_runtime::prelude::*;

#[gpu_extern(source = "__device__ float twice(float x) { return 2.0f * x; }")]
unsafe extern "C" {
    fn twice(x: f32) -> f32;
}

#[gpu_kernel]
fn doubled(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = unsafe { twice(x[i]) };
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let x = dev.zeros::<f32>(4)?;
    let mut out = dev.zeros::<f32>(4)?;
    launch!(doubled[1, 4](&x, &mut out))?;
    Ok(())
}
