use gpu_runtime::prelude::*;

const WEIGHTS: [f64; 3] = [0.25, 0.5, 0.25];
const GRID: [[u8; 2]; 2] = [[1, 2], [3, 4]];

#[gpu_kernel]
fn k(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = WEIGHTS[i % 3] * x[i];
        let g: u8 = GRID[i % 2];
        out[i] += g as f32;
    }
}

fn main() {}
