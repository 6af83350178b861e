use gpu_runtime::prelude::*;

#[gpu_device]
fn clear(out: &mut [f32], i: usize) {
    out[i] = 0.0;
}

// A kernel's `&[T]` cannot be handed to a device function that writes it.
#[gpu_kernel]
fn k(a: &[f32]) {
    let i = grid_1d();
    if i < a.len() {
        clear(a, i);
    }
}

fn main() {}
