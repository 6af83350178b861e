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

fn main() {}
