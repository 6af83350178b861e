use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f16]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i] * 0.5;
    }
}

fn main() {}
