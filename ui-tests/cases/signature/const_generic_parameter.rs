use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k<const N: usize>(out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = N as f32;
    }
}

fn main() {}
