use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let double = |x: f32| x * 2.0;
    if i < a.len() {
        a[i] = double(a[i]);
    }
}

fn main() {}
