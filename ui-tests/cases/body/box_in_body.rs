use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let b = Box::new(1.0f32);
    if i < a.len() {
        a[i] = *b;
    }
}

fn main() {}
