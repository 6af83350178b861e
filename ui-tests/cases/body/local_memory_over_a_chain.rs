use gpu_runtime::prelude::*;

// Each function's arrays fit a GPU thread's 512 KB; the kernel with the deepest chain of
// functions it calls does not (200 KB + 200 KB + 200 KB).
#[gpu_device]
fn inner(k: usize) -> f64 {
    let mut a = [1.0f64; 25_000];
    a[k] = 2.0;
    a[k] + a[k + 1]
}

#[gpu_device]
fn middle(k: usize) -> f32 {
    let mut a = [1.0f32; 50_000];
    let v: f64 = inner(k);
    a[k] = v as f32;
    a[k]
}

#[gpu_device]
fn shallow(k: usize) -> f32 {
    k as f32
}

#[gpu_kernel]
fn deep(out: &mut [f32]) {
    let mut a = [0u32; 50_000];
    a[3] = 1;
    out[0] = middle(3) + shallow(2) + a[3] as f32;
}

fn main() {}
