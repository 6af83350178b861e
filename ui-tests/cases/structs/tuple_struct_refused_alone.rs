// A refused #[gpu_struct] is one error: the kernel that uses it adds none of its own.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy, Debug)]
pub struct Pair(pub f32, pub f32);

#[gpu_kernel]
fn k(p: &[Pair], out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        let q = p[i];
        out[i] = q.0 + q.1;
    }
}

fn main() {}
