//! What `#[gpu_kernel]` leaves behind for a program to use, checked without a GPU: the
//! definition's signatures, kernel names that behave like function names, the handle,
//! paths in `launch!`, and views as arguments (on the simulator).

use gpu_runtime::def::DtypeKind;
use gpu_runtime::prelude::*;

mod kernels {
    use gpu_runtime::prelude::*;

    /// Halves floats of either 16-bit dtype.
    #[gpu_kernel(signatures(f16, bf16))]
    pub fn halve<T: Float>(a: &mut [T]) {
        let i = grid_1d();
        if i < a.len() {
            a[i] = a[i] * T::from_f64(0.5);
        }
    }

    /// `y = a * x`, named like a local variable elsewhere.
    #[gpu_kernel]
    pub fn scale(a: f32, x: &[f32], y: &mut [f32]) {
        let i = grid_1d();
        if i < y.len() {
            y[i] = a * x[i];
        }
    }
}

use kernels::scale;

/// A function of the same module with a local and a parameter named like the kernel: a
/// kernel's name is a function and a module, never a binding that would capture them.
fn twice(scale: f32) -> f32 {
    let doubled = scale * 2.0;
    let scale = doubled - 1.0;
    scale + 1.0
}

#[test]
fn signatures_list_the_dtypes_written() {
    let def = kernels::halve::definition();
    // `precompile` compiles exactly these (the first round compiled f64 for f16).
    assert_eq!(
        def.signatures(),
        vec![vec![DtypeKind::F16], vec![DtypeKind::Bf16]]
    );
    let c = def.specialize(&[DtypeKind::F16]).expect("f16 specialises");
    assert!(c.contains("typedef gt_f16 T;"), "{c}");
}

#[test]
fn a_kernel_name_does_not_capture_bindings() {
    assert_eq!(twice(1.5), 3.0);
    // The kernel is still reachable by its name and its module.
    assert_eq!(scale::definition().name(), "scale");
    assert!(scale::cuda_source().contains("scale"));
}

#[test]
fn the_handle_names_the_kernel_and_launch_takes_paths() -> Result<(), GpuError> {
    // A definition is the handle that names a kernel in a table of kernels.
    let table: [(&str, &'static gpu_runtime::def::KernelDef); 2] = [
        ("scale", kernels::scale::definition()),
        ("halve", kernels::halve::definition()),
    ];
    assert_eq!(table[0].1.name(), "scale");
    assert_eq!(table[1].1.name(), "halve");
    assert!(!std::ptr::eq(table[0].1, table[1].1));
    let dev = Device::simulator();
    let x = dev.to_device(&[1.0f32, 2.0, 3.0, 4.0])?;
    let mut y = dev.to_device(&[f32::NAN; 4])?;
    launch!(kernels::scale.forall(4)(2.0, &x, &mut y))?;
    assert_eq!(y.to_host()?, [2.0, 4.0, 6.0, 8.0]);
    launch!(kernels::scale[1, 4](3.0, &x, &mut y))?;
    assert_eq!(y.to_host()?, [3.0, 6.0, 9.0, 12.0]);
    Ok(())
}

#[test]
fn views_are_kernel_arguments() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let x = dev.to_device(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let mut y = dev.to_device(&[f32::NAN; 6])?;
    // The middle four of x, scaled into the last four of y: only those are written.
    launch!(scale.forall(4)(
        10.0,
        &x.slice(1..5)?,
        &mut y.slice_mut(2..)?
    ))?;
    let out = y.to_host()?;
    assert!(out[0].is_nan() && out[1].is_nan(), "{out:?}");
    assert_eq!(out[2..], [20.0, 30.0, 40.0, 50.0]);
    // A view past the end is refused, not clamped.
    assert!(x.slice(4..9).is_err());
    Ok(())
}

mod unchecked_kernels {
    use gpu_runtime::prelude::*;

    /// Writes `out[at]` without a check on the GPU.
    #[gpu_kernel(unchecked)]
    pub fn poke(out: &mut [f32], at: usize) {
        out[at] = 1.0;
    }
}

/// The definition of a kernel whose indices go unchecked (`unchecked`, raw CUDA C) is
/// reachable from safe code, and so is the hidden launcher; the launcher refuses it, so
/// the only way to launch such a kernel stays its own `unsafe` launcher.
#[test]
fn the_hidden_launcher_refuses_unchecked_kernels() -> Result<(), GpuError> {
    use gpu_runtime::__private::{launch_cuda, Arg};
    use gpu_runtime::SliceArgMut;
    let dev = Device::simulator();
    let mut out = dev.zeros::<f32>(4)?;
    let cfg = LaunchConfig::new(1, 1);
    let refused = |r: Result<(), GpuError>, what: &str| match r {
        Err(GpuError::InvalidLaunch { reason, .. }) if reason.contains("not checked") => {}
        other => panic!("{what}: expected a refusal, got {other:?}"),
    };
    let def = unchecked_kernels::poke::definition();
    refused(
        launch_cuda(
            &dev,
            def,
            &[],
            &cfg,
            &[Arg::array_mut(out.__array_mut()), Arg::scalar(1usize << 40)],
        ),
        "an unchecked kernel",
    );
    // SAFETY: the source declares `k(unsigned int)`, as the signature says; never launched.
    let raw = unsafe {
        gpu_runtime::raw::RawKernel::<(u32,)>::new(
            "extern \"C\" __global__ void k(unsigned int n) {}",
            "k",
        )
    }?;
    refused(
        launch_cuda(&dev, raw.definition(), &[], &cfg, &[Arg::scalar(7u32)]),
        "a raw kernel",
    );
    Ok(())
}
