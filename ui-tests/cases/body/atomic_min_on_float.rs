use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32], v: &[f32]) {
    let i = grid_1d();
    if i < v.len() {
        atomic_min(a, 0, v[i]);
    }
}

fn main() {}
