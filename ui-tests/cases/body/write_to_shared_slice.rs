use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = 0.0;
    }
}

fn main() {}
