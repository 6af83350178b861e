use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32], b: &mut [f16]) {
    let i = grid_1d();
    if i < a.len() {
        b[i] = a[i] as f16;
    }
}

fn main() {}
