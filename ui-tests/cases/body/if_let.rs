use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if let Some(x) = a.get(i) {
        a[i] = *x * 2.0;
    }
}

fn main() {}
