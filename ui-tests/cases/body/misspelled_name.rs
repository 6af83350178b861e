use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(out: &mut [f32], scale: f32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = out[i] * scael;
    }
}

fn main() {}
