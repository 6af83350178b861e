use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let mut s = 0.0f32;
    for x in a.iter().filter(|x| **x > 0.0) {
        s += *x;
    }
    out[0] = s;
}

fn main() {}
