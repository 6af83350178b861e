use gpu_runtime::prelude::*;

#[gpu_kernel]
fn scale<T: Copy>(a: &mut [T]) {
    let _ = grid_1d();
}

fn main() {}
