use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(counts: &[u32]) {
    atomic_add(counts, 0, 1u32);
}

fn main() {}
