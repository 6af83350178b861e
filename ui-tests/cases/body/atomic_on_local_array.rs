use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [u32]) {
    let mut counts = [0u32; 4];
    atomic_add(counts, 1, 1u32);
    a[0] = counts[1];
}

fn main() {}
