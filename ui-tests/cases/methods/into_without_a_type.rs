use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(x: &[f32], out: &mut [f64]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = x[i].into();
    }
}

fn main() {}
