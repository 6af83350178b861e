use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    dbg!(i);
}

fn main() {}
