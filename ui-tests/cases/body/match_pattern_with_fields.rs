use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = match a[i] {
            Ok(x) => x,
            _ => 2,
        };
    }
}

fn main() {}
