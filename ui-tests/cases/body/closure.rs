use gpu_runtime::prelude::*;

#[gpu_device]
fn twice(x: f32) -> f32 {
    x * 2.0
}

// A closure local passed to a function that takes a number: rustc says so, on the closure.
#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let double = |x: f32| x * 2.0;
    if i < a.len() {
        a[i] = twice(double);
    }
}

fn main() {}
