use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let x = 1.0f32;
    let r = &x;
    if i < a.len() {
        a[i] = *r;
    }
}

fn main() {}
