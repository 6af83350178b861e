use gpu_runtime::prelude::*;

#[gpu_device]
fn total(a: &[f32]) -> f32 {
    a[0]
}

#[gpu_device]
fn clear(a: &mut [f32]) {
    a[0] = 0.0;
}

#[gpu_kernel]
fn k(x: &[f32], n: u32, out: &mut [f32]) {
    let v = [1.0f32, 2.0, 3.0];
    let a: f32 = total(&v[1..]);
    let b: f32 = total(&x[..n]);
    let c: f32 = total(&x[..atomic_add(out, 0, 1.0)as usize]);
    clear(&mut x[1..]);
    let d = x[1..2];
    out[0] = a + b + c;
}

#[gpu_device]
fn copy_into(dst: &mut [f32], src: &[f32]) {
    dst[0] = src[0];
}

#[gpu_kernel]
fn overlap(y: &mut [f32]) {
    copy_into(&mut y[0..4], &y[2..6]);
}

fn main() {}
