//! The seed's vector addition three ways, each checked on the host:
//!
//! 1. a `#[gpu_kernel]` written in Rust;
//! 2. the seed's CUDA C string as a `RawKernel` (CuPy's `RawKernel`, PyCUDA's
//!    `SourceModule`), its parameters declared in Rust and checked against the C;
//! 3. buffers made by cudarc, handed to the kernel and back without a copy.
//!
//! On the simulator only the first can run (a raw kernel is C, cudarc buffers are GPU
//! memory); the other two say so.

use gpu_runtime::cudarc::driver::{CudaSlice, DevicePtr};
use gpu_runtime::prelude::*;
use gpu_runtime::raw::{Ptr, PtrMut, RawKernel};
use gpu_runtime::Backend;

#[gpu_kernel]
pub fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        c[i] = a[i] + b[i];
    }
}

/// The seed's kernel, as CuPy's RawKernel and PyCUDA's SourceModule take it.
pub const SEED_SOURCE: &str = r#"
extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"#;

/// The raw kernel's declared signature: `launch!` arguments are checked against it.
pub type SeedSignature = (Ptr<f32>, Ptr<f32>, PtrMut<f32>, i32);

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn check(way: &str, got: &[f32], a: &[f32], b: &[f32]) -> Result<(), GpuError> {
    match (0..a.len()).find(|&i| got[i] != a[i] + b[i]) {
        None => {
            println!("{way}: all {} elements correct", a.len());
            Ok(())
        }
        Some(i) => Err(GpuError::InvalidArgument(format!(
            "{way}: c[{i}] = {}, want {}",
            got[i],
            a[i] + b[i]
        ))),
    }
}

pub fn run() -> Result<(), GpuError> {
    let n: usize = 1 << 20;
    let host_a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let host_b: Vec<f32> = (0..n).map(|i| (i % 7) as f32 - 3.0).collect();
    let dev = Device::gpu_or_simulator()?;
    let (blocks, threads) = (n.div_ceil(256), 256);

    // 1. The attribute.
    let a = dev.to_device(&host_a)?;
    let b = dev.to_device(&host_b)?;
    let mut c = dev.zeros::<f32>(n)?;
    launch!(vec_add[blocks, threads](&a, &b, &mut c))?;
    check("1. #[gpu_kernel]", &c.to_host()?, &host_a, &host_b)?;

    // 2. The same CUDA C string the seed hands to CuPy and PyCUDA.
    // SAFETY: the seed's kernel takes exactly these parameters and touches only
    // `a[..n]`, `b[..n]` and `c[..n]`; every launch below passes arrays of `n` elements.
    let raw = unsafe { RawKernel::<SeedSignature>::new(SEED_SOURCE, "vec_add")? };
    let mut c = dev.zeros::<f32>(n)?;
    // SAFETY: `blocks * threads >= n` threads each touch at most element `i < n` of
    // `a`, `b` and `c`, which all hold `n` elements.
    match unsafe { raw.launch(LaunchConfig::new(blocks, threads), &a, &b, &mut c, n as i32) } {
        Ok(()) => check("2. RawKernel", &c.to_host()?, &host_a, &host_b)?,
        Err(e) if dev.backend() == Backend::Simulator => {
            println!("2. RawKernel: skipped on the simulator ({e})")
        }
        Err(e) => return Err(e),
    }

    // 3. Buffers that cudarc made, used in place.
    let Some(stream) = dev.cuda_stream() else {
        println!("3. cudarc buffers: skipped on the simulator (cudarc buffers are GPU memory)");
        println!("backend: {}, {}", dev.backend(), dev.name());
        return Ok(());
    };
    let driver = |e| GpuError::InvalidArgument(format!("cudarc: {e:?}"));
    let ca: CudaSlice<f32> = stream.clone_htod(&host_a).map_err(driver)?;
    let cb: CudaSlice<f32> = stream.clone_htod(&host_b).map_err(driver)?;
    let cc: CudaSlice<f32> = stream.alloc_zeros(n).map_err(driver)?;
    let (a_ptr, c_ptr) = (ca.device_ptr(&stream).0, cc.device_ptr(&stream).0);
    let a = DeviceArray::from_cuda_slice(&dev, ca)?;
    let b = DeviceArray::from_cuda_slice(&dev, cb)?;
    let mut c = DeviceArray::from_cuda_slice(&dev, cc)?;
    assert_eq!(
        (a.device_ptr(), c.device_ptr()),
        (Some(a_ptr), Some(c_ptr)),
        "no copy"
    );
    launch!(vec_add[blocks, threads](&a, &b, &mut c))?;
    let cc = c.into_cuda_slice()?;
    let got = stream.clone_dtoh(&cc).map_err(driver)?;
    check("3. cudarc buffers, no copy", &got, &host_a, &host_b)?;
    println!("backend: {}, {}", dev.backend(), dev.name());
    Ok(())
}
