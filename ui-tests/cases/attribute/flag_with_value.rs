use gpu_runtime::prelude::*;

#[gpu_kernel(line_info = true)]
fn k(a: &mut [f32]) {
    let _ = grid_1d();
}

fn main() {}
