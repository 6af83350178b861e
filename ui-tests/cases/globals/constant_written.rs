use gpu_runtime::prelude::*;

#[gpu_global(constant)]
static TAPS: [f32; 4] = [1.0; 4];

// A constant global is written by the host only.
#[gpu_kernel]
fn k(x: &[f32]) {
    let i = grid_1d();
    if i < x.len() {
        TAPS[i % 4] = x[i];
    }
}

fn main() {}
