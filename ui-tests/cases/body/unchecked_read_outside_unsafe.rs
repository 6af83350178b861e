use gpu_runtime::prelude::*;

// `get_unchecked` skips the check on the GPU: like a slice's, it is `unsafe`.
#[gpu_kernel]
fn k(a: &[f32], b: &mut [f32]) {
    let i = grid_1d();
    if i < b.len() {
        b[i] = a.get_unchecked(i);
    }
}

fn main() {}
