use gpu_runtime::prelude::*;

#[gpu_kernel(signatures(f32, i32))]
fn scale<T: Float>(a: &mut [T]) {
    let _ = grid_1d();
}

fn main() {}
