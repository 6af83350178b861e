use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = match a[i] {
            0 => 1,
            1 => 2,
        };
    }
}

fn main() {}
