use gpu_runtime::prelude::*;

// `bounds_check` is a flag: it checks every index, there is nothing to choose.
#[gpu_kernel(bounds_check(a))]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = 0.0;
    }
}

fn main() {}
