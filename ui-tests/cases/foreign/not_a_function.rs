use gpu_runtime::prelude::*;

#[gpu_extern(source = "__device__ float scale = 2.0f;")]
unsafe extern "C" {
    static scale: f32;
}

fn main() {}
