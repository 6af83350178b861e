use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let mut tile = shared_array_2d::<f32, 4, 4>();
    tile[1][2] = a[0];
}

fn main() {}
