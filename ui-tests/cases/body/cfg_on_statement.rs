use gpu_runtime::prelude::*;

// rustc would apply the `#[cfg]` to the simulator's code and not to the GPU's: refused.
#[gpu_kernel]
fn scale(x: &mut [f32]) {
    let i = grid_1d();
    #[cfg(debug_assertions)]
    let s = 2.0f32;
    #[cfg(not(debug_assertions))]
    let s = 1.0f32;
    if i < x.len() {
        x[i] *= s;
    }
}

fn main() {}
