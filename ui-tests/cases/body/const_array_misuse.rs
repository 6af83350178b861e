use gpu_runtime::prelude::*;

const LUT: [f32; 4] = [0.5, 1.0, 1.5, 2.0];
static COUNTS: [u32; 2] = [0, 0];

#[gpu_device]
fn total(a: &[f32]) -> f32 {
    a[0]
}

#[gpu_kernel]
fn k(i: usize, out: &mut [f32]) {
    LUT[i] = 1.0f32;
    atomic_add(COUNTS, 0, 1u32);
    let lent: f32 = total(&mut LUT);
    out[0] = lent;
}

fn main() {}
