use gpu_runtime::prelude::*;

// `max()` of floats: Rust refuses it (`f32` is not `Ord`), and so do kernels, through
// rustc, on the call.
#[gpu_kernel]
fn k(f: &[f32], g: &mut [f32]) {
    let h = f.iter().copied().max();
    g[0] = h.unwrap_or(0.0);
}

fn main() {}
