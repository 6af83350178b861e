use gpu_runtime::prelude::*;

#[gpu_device]
fn advance(k: &mut usize, by: usize) -> bool {
    *k += by;
    true
}

#[gpu_device]
fn sum(w: &[f32]) -> f32 {
    w[0]
}

#[gpu_device]
fn via(acc: &mut f32, v: f32) {
    let a = acc;
    *a += v;
}

#[gpu_elementwise]
fn by_ref(x: &f32) -> f32 {
    *x
}

#[gpu_kernel]
fn k(out: &mut [f32], by: usize) {
    let mut k = grid_1d();
    if k < out.len() && advance(&mut k, by) {
        out[k] = 1.0;
    }
    let moved: bool = advance(&mut k, k);
    out[0] = if moved { 1.0 } else { 0.0 };
}

#[gpu_kernel]
fn bound_reads_memory(x: &[f32], idx: &[u32], out: &mut [f32]) {
    let s: f32 = sum(&x[idx[0] as usize..]);
    out[0] = s;
}

fn main() {}
