use gpu_runtime::prelude::*;

// Device functions take 1-D arrays; a 2-D one is indexed in the kernel.
#[gpu_device]
fn corner(m: &Array2<f32>) -> f32 {
    m[(0, 0)]
}

fn main() {}
