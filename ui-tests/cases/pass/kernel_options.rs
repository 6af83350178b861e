use gpu_runtime::prelude::*;

/// Every option at once; the simulator ignores them, the CUDA source carries the bounds.
#[gpu_kernel(fast_math, max_registers = 64, launch_bounds(256, 2), line_info, signatures(f32, f64))]
fn scale<T: Float>(a: &mut [T], s: T) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i] * s;
    }
}

fn main() -> Result<(), GpuError> {
    let def = scale.definition();
    assert!(def.options.fast_math && def.options.line_info);
    assert_eq!(def.options.max_registers, Some(64));
    assert_eq!(def.options.launch_bounds, Some((256, 2)));
    assert_eq!(def.signatures.len(), 2);
    assert!(scale.cuda_source().contains("__launch_bounds__(256, 2)"));
    assert!(scale.cuda_source().contains("#line "), "{}", scale.cuda_source());
    let dev = Device::simulator();
    scale.precompile(&dev)?;
    let mut a = dev.to_device(&[1.0f32, 2.0])?;
    launch!(scale[1, 32](&mut a, 3.0f32))?;
    assert_eq!(a.to_host()?, vec![3.0, 6.0]);
    Ok(())
}
