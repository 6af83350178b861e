use gpu_runtime::prelude::*;

const LUT: [[u16; 2]; 2] = [[1, 2], [3, 4]];

#[gpu_kernel]
fn k(i: usize, out: &mut [f32]) {
    out[0] = LUT[i][0] as f32;
}

fn main() {}
