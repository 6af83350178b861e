use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let done = sync_threads();
    a[0] = 1.0;
}

fn main() {}
