use gpu_runtime::prelude::*;

#[gpu_kernel(max_registers = 1000)]
fn k(a: &mut [f32]) {
    let _ = grid_1d();
}

fn main() {}
