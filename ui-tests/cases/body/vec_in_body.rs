use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let v: Vec<f32> = Vec::new();
    let i = grid_1d();
    if i < a.len() {
        a[i] = 0.0;
    }
}

fn main() {}
