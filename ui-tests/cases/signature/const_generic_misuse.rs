use gpu_runtime::prelude::*;

// A const parameter of a type C constants cannot carry.
#[gpu_kernel]
fn char_param<const C: char>(out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = 1.0;
    }
}

// Named as a local would be, or as the language's constant.
#[gpu_kernel]
fn lower_case<const config: usize, const WARP_SIZE: u32>(out: &mut [f32]) {
    out[0] = config as f32 + WARP_SIZE as f32;
}

// Device functions are not templates.
#[gpu_device]
fn helper<const N: usize>(x: f32) -> f32 {
    x
}

// Lengths computed from a const parameter: Rust itself cannot size an array so.
#[gpu_kernel]
fn computed_lengths<const N: usize>(out: &mut [f32]) {
    let a = [0.0f32; N * 2];
    let s = shared_array::<f32, { N + 1 }>();
    out[0] = a[0] + s[0];
}

fn main() {}
