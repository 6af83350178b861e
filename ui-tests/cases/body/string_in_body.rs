use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let name = String::from("k");
    let i = grid_1d();
    if i < a.len() {
        a[i] = name.len() as f32;
    }
}

fn main() {}
