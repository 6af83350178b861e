use gpu_runtime::prelude::*;

#[gpu_device]
fn first(a: &[f32]) -> f32 {
    a[0]
}

fn main() {}
