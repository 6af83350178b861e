use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        let (s, c) = a[i].sin_cos();
        a[i] = s + c;
    }
}

fn main() {}
