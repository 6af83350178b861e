use gpu_runtime::prelude::*;

// `get_unchecked_mut` skips the check on the GPU: like a slice's, it is `unsafe`.
#[gpu_kernel]
fn k(b: &mut [f32]) {
    let i = grid_1d();
    *b.get_unchecked_mut(i) = 1.0;
}

fn main() {}
