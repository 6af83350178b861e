use gpu_runtime::prelude::*;

#[gpu_extern(source = "__device__ float total(const float* x, int n) { return x[0]; }")]
unsafe extern "C" {
    fn total(x: &[f32], n: i32) -> f32;
}

fn main() {}
