use gpu_runtime::prelude::*;

// Indices are checked by default: the first round's `bounds_check` option is gone.
#[gpu_kernel(bounds_check)]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = 0.0;
    }
}

fn main() {}
