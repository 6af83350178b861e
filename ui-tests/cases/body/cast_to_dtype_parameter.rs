use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k<T: Float>(a: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = i as T;
    }
}

fn main() {}
