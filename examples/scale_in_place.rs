//! The seed's interop example: an array made by another library is scaled in place by
//! our kernel, with no copy either way. Here the other library is cudarc (what most Rust
//! GPU crates are built on); the same works for any raw device pointer, behind `unsafe`.
//!
//! On the simulator the kernel scales a simulator array in place, and the example says
//! that the hand-over itself needs GPU memory.

use gpu_runtime::cudarc::driver::{CudaSlice, DevicePtr};
use gpu_runtime::prelude::*;

#[gpu_kernel]
pub fn scale<T: Float>(x: &mut [T], factor: T) {
    let i = grid_1d();
    if i < x.len() {
        x[i] = x[i] * factor;
    }
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn check(what: &str, got: &[f64], host: &[f64], factor: f64) -> Result<(), GpuError> {
    match (0..host.len()).find(|&i| got[i] != host[i] * factor) {
        None => {
            println!("{what}: all {} elements scaled by {factor}", host.len());
            Ok(())
        }
        Some(i) => Err(GpuError::InvalidArgument(format!(
            "{what}: x[{i}] = {}, want {}",
            got[i],
            host[i] * factor
        ))),
    }
}

pub fn run() -> Result<(), GpuError> {
    let n = 1usize << 20;
    let host: Vec<f64> = (0..n).map(|i| (i % 977) as f64 - 400.25).collect();
    let dev = Device::gpu_or_simulator()?;
    let grid = n.div_ceil(256);

    let Some(stream) = dev.cuda_stream() else {
        let mut x = dev.to_device(&host)?;
        launch!(scale[grid, 256](&mut x, 2.5))?;
        check("simulator array, in place", &x.to_host()?, &host, 2.5)?;
        println!("the hand-over of cudarc buffers and raw pointers needs GPU memory: skipped on the simulator");
        return Ok(());
    };
    let driver = |e| GpuError::InvalidArgument(format!("cudarc: {e:?}"));

    // A buffer the other library owns, on the device's default stream (so its work and
    // ours are ordered without extra synchronisation).
    let theirs: CudaSlice<f64> = stream.clone_htod(&host).map_err(driver)?;
    let before = theirs.device_ptr(&stream).0;
    let mut x = DeviceArray::from_cuda_slice(&dev, theirs)?;
    launch!(scale[grid, 256](&mut x, 2.5))?;
    let theirs = x.into_cuda_slice()?;
    assert_eq!(
        theirs.device_ptr(&stream).0,
        before,
        "the same memory, not a copy"
    );
    check(
        "cudarc buffer, in place",
        &stream.clone_dtoh(&theirs).map_err(driver)?,
        &host,
        2.5,
    )?;

    // The same through a raw device pointer, as from a C library.
    let (ptr, len) = dev.to_device(&host)?.into_raw()?;
    // SAFETY: `ptr` was just given up by an array of `len` f64 on this device, and nothing
    // else owns it.
    let mut x = unsafe { DeviceArray::<f64>::from_raw(&dev, ptr, len)? };
    launch!(scale[grid, 256](&mut x, -4.0))?;
    check("raw device pointer, in place", &x.to_host()?, &host, -4.0)?;
    println!("backend: {}, {}", dev.backend(), dev.name());
    Ok(())
}
