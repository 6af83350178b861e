use gpu_runtime::prelude::*;

#[gpu_device]
fn spread(a: f32) -> (f32, f32, f32, f32, f32) {
    (a, a, a, a, a)
}

fn main() {}
