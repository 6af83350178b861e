use gpu_runtime::prelude::*;

#[gpu_device]
fn first(a: &[f32]) -> f32 {
    a[0]
}

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let m = [[1.0f32, 2.0], [3.0, 4.0]];
    let v: f32 = first(&m);
    out[0] = v;
}

fn main() {}
