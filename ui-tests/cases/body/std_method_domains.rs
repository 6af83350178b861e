// The standard methods on the numbers they apply to: each misuse names the method and the
// type, on the call.
use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [i32], f: &mut [f32], u: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() && i < f.len() && i < u.len() {
        // `is_power_of_two` is unsigned integers' only.
        let p = a[i].is_power_of_two();
        // `count_ones` is integers'.
        u[i] = f[i].count_ones();
        // `pow` is integers' (floats have `powi` and `powf`).
        f[i] = f[i].pow(3);
        if p {
            f[i] = 0.0;
        }
    }
}

fn main() {}
