use gpu_runtime::prelude::*;

const WHY: &str = "negative";

#[gpu_kernel]
fn k(a: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    assert!(a[i] > 0, WHY);
    out[i] = a[i];
}

fn main() {}
