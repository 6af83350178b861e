use gpu_runtime::prelude::*;

fn plain(x: f32) -> f32 {
    x * 2.0
}

#[gpu_device]
fn twice(x: f32) -> f32 {
    plain(x)
}

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = twice(a[i]);
    }
}

fn main() {}
