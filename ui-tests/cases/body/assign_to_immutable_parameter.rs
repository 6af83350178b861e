use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32], n: i32) {
    let i = grid_1d();
    n += 1;
    if i < a.len() {
        a[i] = n as f32;
    }
}

fn main() {}
