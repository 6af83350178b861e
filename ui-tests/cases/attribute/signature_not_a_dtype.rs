use gpu_runtime::prelude::*;

#[gpu_kernel(signatures(String))]
fn scale<T: Float>(a: &mut [T]) {
    let _ = grid_1d();
}

fn main() {}
