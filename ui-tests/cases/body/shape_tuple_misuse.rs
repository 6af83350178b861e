// `let (..) = a.shape()`: as many names as the array has extents, and only on 2-D and 3-D
// array parameters.
use gpu_runtime::prelude::*;

#[gpu_kernel]
fn shapes(m: &DeviceArray3<f32>, x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let (a, b) = m.shape();
    let (n, k) = x.shape();
    if i < out.len() {
        out[i] = (a + b + n + k) as f32;
    }
}

fn main() {}
