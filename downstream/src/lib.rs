//! A downstream crate: it depends on `gpu-runtime` renamed to `gpu`, and re-exports it as
//! `kernels_kit`, as a crate that builds on ours would. Its kernels point the attributes
//! at the runtime with `crate = "..."`. It forbids `unsafe` and denies every warning, as
//! strict crates do: the attributes' code must pass both.
#![forbid(unsafe_code)]
#![deny(warnings)]

/// The runtime, re-exported under this crate's name for its own users.
pub mod kernels_kit {
    pub use gpu::*;
}

/// Adds one, through the renamed dependency.
#[gpu::gpu_kernel(crate = "gpu")]
pub fn add_one(a: &mut [f32]) {
    let i = gpu::lang::grid_1d();
    if i < a.len() {
        a[i] = bump(a[i]);
    }
}

/// A device function through the renamed dependency.
#[gpu::gpu_device(crate = "gpu")]
pub fn bump(x: f32) -> f32 {
    x + 1.0
}

/// Doubles, through the re-export.
#[kernels_kit::gpu_kernel(crate = "crate::kernels_kit")]
pub fn double(a: &mut [f32]) {
    let i = kernels_kit::lang::grid_1d();
    if i < a.len() {
        a[i] = 2.0 * a[i];
    }
}

/// A buffer of this crate's own cudarc (0.19, no CUDA-version feature of its own): the same
/// type as the runtime's, so buffers pass between the two without conversion.
pub fn own_cudarc_slice(a: &gpu::DeviceArray<f32>) -> Option<&cudarc::driver::CudaSlice<f32>> {
    a.as_cuda_slice()
}
