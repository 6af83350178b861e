use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32], depth: u32) {
    let i = grid_1d();
    if depth > 0 {
        k(a, depth - 1);
    }
    if i < a.len() {
        a[i] = 0.0;
    }
}

fn main() {}
