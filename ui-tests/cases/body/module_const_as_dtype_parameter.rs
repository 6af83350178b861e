use gpu_runtime::prelude::*;

const SCALE: f32 = 2.0;

// A constant has one type; `T` is every float.
#[gpu_kernel]
fn k<T: Float>(out: &mut [T]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = out[i] * SCALE;
    }
}

fn main() {}
