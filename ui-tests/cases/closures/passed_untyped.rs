use gpu_runtime::prelude::*;

#[gpu_device]
fn apply<F: Fn(f32) -> f32>(f: F, x: f32) -> f32 {
    f(x)
}

#[gpu_device]
fn g(x: f32) -> f32 {
    x * 3.0
}

// Closures whose types the kernel cannot see: the callee's bound decides them in Rust.
#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() && i < out.len() {
        // Only a literal types `v`, and the result.
        out[i] = apply(|v| v * 2.0, a[i]);
        // Nothing types `w`.
        out[i] = apply(|w| g(w), a[i]);
        // A result computed by an `if` from a device function's values.
        out[i] = apply(|v: f32| if v > 0.0 { g(v) } else { g(-v) }, a[i]);
    }
}

fn main() {}
