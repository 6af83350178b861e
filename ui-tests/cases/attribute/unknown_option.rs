use gpu_runtime::prelude::*;

#[gpu_kernel(fastest)]
fn k(a: &mut [f32]) {
    let _ = grid_1d();
}

fn main() {}
