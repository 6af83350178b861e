use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32], n: usize) {
    let mut tile = shared_array::<f32, n>();
    tile[0] = a[0];
}

fn main() {}
