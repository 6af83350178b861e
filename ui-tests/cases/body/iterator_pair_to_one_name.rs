use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    for pair in a.iter().enumerate() {
        out[0] = 1.0;
    }
}

fn main() {}
