use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i >= a.len() {
        return 1;
    }
    a[i] = 0.0;
}

fn main() {}
