use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = thread_idx().x;
    a[i] = 1.0;
}

fn main() {}
