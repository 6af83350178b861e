// Methods of numbers called by path that kernels take only as methods, or not yet: each
// says what to write, on the method's name.
use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(f: &mut [f32], a: &mut [i32]) {
    let i = grid_1d();
    if i < f.len() && i < a.len() {
        f[i] = f32::clamp(f[i], 0.0, 1.0);
        a[i] = f32::sin_cos(f[i]).0 as i32;
    }
}

fn main() {}
