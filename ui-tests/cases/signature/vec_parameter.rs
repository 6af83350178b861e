use gpu_runtime::prelude::*;

#[gpu_kernel]
fn fill(out: Vec<f32>) {
    let _ = grid_1d();
}

fn main() {}
