use gpu_runtime::prelude::*;

#[gpu_kernel(fast_math, fast_math)]
fn k(a: &mut [f32]) {
    let _ = grid_1d();
}

fn main() {}
