use gpu_runtime::prelude::*;

// A device function cannot know whether the array it is handed is 16-byte aligned.
#[gpu_device]
fn first_of_four(a: &[f32], i: usize) -> f32 {
    let v = load4(a, i);
    v[0]
}

fn main() {}
