use gpu_runtime::prelude::*;

/// Every option at once; the simulator ignores them, the CUDA source carries the bounds.
#[gpu_kernel(
    fast_math,
    max_registers = 64,
    launch_bounds(256, 2),
    line_info,
    fmad = false,
    overflow_checks = true,
    signatures(f32, f64)
)]
fn scale<T: Float>(a: &mut [T], s: T) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i] * s;
    }
}

/// An `unchecked` kernel: its launch is written in `unsafe`.
#[gpu_kernel(unchecked, debug)]
fn fill(a: &mut [f32], v: f32) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = v;
    }
}

fn main() -> Result<(), GpuError> {
    let def = scale::definition();
    let o = def.options();
    assert!(o.fast_math && o.line_info && !o.fmad && o.overflow_checks && !o.unchecked);
    assert_eq!(o.max_registers, Some(64));
    assert_eq!(o.launch_bounds, Some((256, 2)));
    assert_eq!(def.signatures().len(), 2);
    assert!(fill::definition().options().unchecked && fill::definition().options().debug);
    assert!(scale::cuda_source().contains("__launch_bounds__(256, 2)"));
    assert!(scale::cuda_source().contains("#line "), "{}", scale::cuda_source());
    let dev = Device::simulator();
    scale::definition().precompile(&dev)?;
    let mut a = dev.to_device(&[1.0f32, 2.0])?;
    launch!(scale[1, 32](&mut a, 3.0f32))?;
    assert_eq!(a.to_host()?, vec![3.0, 6.0]);
    // SAFETY: `fill` writes `a[i]` only for `i < a.len()`.
    unsafe { launch!(fill[1, 32](&mut a, 7.0)) }?;
    assert_eq!(a.to_host()?, vec![7.0, 7.0]);
    Ok(())
}
