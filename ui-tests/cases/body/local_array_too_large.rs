use gpu_runtime::prelude::*;

// 1 MiB of local arrays per thread: more than the 512 KB a GPU thread can have.
#[gpu_kernel]
fn k(out: &mut [f64]) {
    let mut t = [[0.0f64; 65536]; 2];
    t[1][7] = 1.0;
    out[0] = t[1][7];
}

fn main() {}
