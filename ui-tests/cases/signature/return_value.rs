use gpu_runtime::prelude::*;

#[gpu_kernel]
fn sum(a: &[f32]) -> f32 {
    a[0]
}

fn main() {}
