use gpu_runtime::prelude::*;

fn helper(x: f32) -> f32 {
    x + 1.0
}

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = helper(a[i]);
    }
}

fn main() {}
