use gpu_runtime::prelude::*;

#[gpu_device]
fn add_to(acc: &mut f32, v: f32) {
    *acc += v;
}

#[gpu_device]
fn overwrite(x: &f32) {
    *x = 1.0;
}

#[gpu_kernel]
fn by_reference(s: &mut f32) {}

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let x = 2.0f32;
    add_to(&mut a[i], 1.0f32);
    let r = &mut x;
    let e = &a[i];
}

fn main() {}
