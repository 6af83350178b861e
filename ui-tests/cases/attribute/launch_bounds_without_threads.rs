use gpu_runtime::prelude::*;

#[gpu_kernel(launch_bounds)]
fn k(a: &mut [f32]) {
    let _ = grid_1d();
}

fn main() {}
