use gpu_runtime::prelude::*;

// `get` gives an `Option` of a reference, which kernels do not have: index the array.

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if let Some(x) = a.get(i) {
        a[i] = *x * 2.0;
    }
}

fn main() {}
