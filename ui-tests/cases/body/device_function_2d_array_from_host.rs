use gpu_runtime::prelude::*;

// A device function taking a 2-D array is called from kernels: the host has no view of a
// device array to pass it.
#[gpu_device]
fn corner(m: &DeviceArray2<f32>) -> f32 {
    m[(0, 0)]
}

fn main() {
    let v = vec![1.0f32; 4];
    let _ = corner(&v[..]);
}
