use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    for (x, i) in a.iter().zip(0..4usize) {
        out[i] = *x;
    }
}

fn main() {}
