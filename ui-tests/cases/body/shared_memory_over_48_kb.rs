use gpu_runtime::prelude::*;

// Two tiles of 32 KB: more than the 48 KB of static shared memory a block can have.
#[gpu_kernel]
fn k(out: &mut [f32]) {
    let mut a = shared_array::<f32, 8192>();
    let mut b = shared_array::<f32, 8192>();
    a[0] = 1.0;
    b[0] = 2.0;
    out[0] = a[0] + b[0];
}

fn main() {}
