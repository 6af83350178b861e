use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = 1.5;
    }
}

fn main() {}
