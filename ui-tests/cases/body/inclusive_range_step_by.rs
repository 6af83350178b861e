use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(out: &mut [u32]) {
    for i in (0..=10u32).step_by(2) {
        out[0] += i;
    }
}

fn main() {}
