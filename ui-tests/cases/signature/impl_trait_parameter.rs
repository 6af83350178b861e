use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(scale: impl Float, out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = 0.0;
    }
}

fn main() {}
