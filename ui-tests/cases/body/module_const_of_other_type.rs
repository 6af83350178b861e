use gpu_runtime::prelude::*;

const SCALE: f64 = 2.0;

// The kernel multiplies an `f32` by `SCALE`, which is an `f64`: rustc reports it on the
// constant.
#[gpu_kernel]
fn k(out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = out[i] * SCALE;
    }
}

fn main() {}
