use gpu_runtime::prelude::*;

#[gpu_device]
fn score(n: u32) -> f32 {
    n as f32 * 0.5
}

#[gpu_device]
fn finish(x: f32) -> f32 {
    x + 1.0
}

#[gpu_kernel]
fn k(m: &[u32], out: &mut [f32]) {
    let i = grid_1d();
    let s = match m[i] {
        0 => score(1),
        n => score(n),
    };
    out[i] = finish(s);
}

fn main() {}
