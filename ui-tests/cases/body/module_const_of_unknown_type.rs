use gpu_runtime::prelude::*;

const SCALE: f32 = 2.0;

// Nothing in the kernel says which type `SCALE` has, and the kernel cannot see its
// declaration.
#[gpu_kernel]
fn k(out: &mut [f32]) {
    let s = SCALE;
    let t = s;
    out[0] = 1.0;
}

fn main() {}
