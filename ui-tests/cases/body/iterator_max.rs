use gpu_runtime::prelude::*;

// `max()` of references (`a.iter()`), which kernels do not have: take the values first.
#[gpu_kernel]
fn k(a: &[i32], out: &mut [i32]) {
    let m = a.iter().max();
    out[0] = 1;
}

fn main() {}
