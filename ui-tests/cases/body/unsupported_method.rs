use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        let (v, wrapped) = a[i].overflowing_add(1);
        a[i] = v + u32::from(wrapped);
    }
}

fn main() {}
