use gpu_runtime::prelude::*;

#[gpu_elementwise]
fn nothing(x: f32) {
    let _ = x;
}

fn main() {}
