// `Option` arguments that need statements of their own (`checked_mul`, an `if`), passed
// straight to a device function's `Option` parameter: bound to a local first, as the error
// says; and a kernel, which takes no `Option` parameter.
use gpu_runtime::prelude::*;

#[gpu_device]
fn or_zero(o: Option<i32>) -> i32 {
    o.unwrap_or(0)
}

#[gpu_kernel]
fn k(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        let a: i32 = or_zero(x[i].checked_mul(3));
        let b: i32 = or_zero(if x[i] > 0 { Some(x[i]) } else { None });
        out[i] = a + b;
    }
}

#[gpu_kernel]
fn takes_option(o: Option<f32>, out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = o.unwrap_or(0.0);
    }
}

fn main() {}
