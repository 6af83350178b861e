use gpu_runtime::prelude::*;

const TPB: usize = 128;

// 128 x 128 f32 tiles, two of them: 128 KB, more than a block's 48 KB of static shared
// memory. rustc finds out once it knows `TPB`.
#[gpu_kernel]
fn k(out: &mut [f32]) {
    let mut a = shared_array_2d::<f32, TPB, TPB>();
    let mut b = shared_array_2d::<f32, TPB, TPB>();
    a[(0, 0)] = 1.0;
    b[(0, 0)] = 2.0;
    out[0] = a[(0, 0)] + b[(0, 0)];
}

fn main() {}
