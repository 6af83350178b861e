use gpu_runtime::prelude::*;

#[gpu_extern(source = "__device__ float twice(float x) { return 2.0f * x; }")]
unsafe extern "C" {
    fn twice(x: f32) -> f32;
}

#[gpu_device]
fn helper(x: f32) -> f32 {
    unsafe { twice(x) }
}

fn main() {}
