use gpu_runtime::prelude::*;

#[gpu_kernel(signatures((f32, f64)))]
fn scale<T: Float>(a: &mut [T]) {
    let _ = grid_1d();
}

fn main() {}
