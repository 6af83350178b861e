use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    assert!(a[i] > 0, "a[{}] = {} (limit {})", i, a[i], out.len());
    out[i] = a[i];
}

fn main() {}
