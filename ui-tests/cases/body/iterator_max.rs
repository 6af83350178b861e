use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[i32], out: &mut [i32]) {
    let m = a.iter().max();
    out[0] = 0;
}

fn main() {}
