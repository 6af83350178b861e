use gpu_runtime::prelude::*;
use gpu_runtime::raw::{Ptr, PtrMut, RawKernel};

const SOURCE: &str = r#"
extern "C" __global__ void scale(const float* x, float* y, float s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = s * x[i];
}"#;

// A raw kernel's declared parameters type its launches like a #[gpu_kernel]'s: an f64
// array for `Ptr<f32>` is a compile error at that argument.
fn main() -> Result<(), GpuError> {
    // SAFETY: the kernel takes these parameters and touches only x[..n] and y[..n].
    let k = unsafe { RawKernel::<(Ptr<f32>, PtrMut<f32>, f32, i32)>::new(SOURCE, "scale")? };
    let dev = Device::simulator();
    let x = dev.zeros::<f64>(4)?;
    let mut y = dev.zeros::<f32>(4)?;
    launch!(k[1, 32](&x, &mut y, 2.0, 4))?;
    Ok(())
}
