use gpu_runtime::prelude::*;

#[gpu_device]
fn apply<F: Fn(f32) -> f32>(f: F, x: f32) -> f32 {
    f(x)
}

// A closure whose types differ from the bound's: rustc says so, on the closure.
#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() && i < out.len() {
        let wide = 2.0f64;
        out[i] = apply(|v| v * wide, a[i]);
    }
}

fn main() {}
