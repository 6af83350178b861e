//! What going wrong looks like: each mistake below is made on purpose, and the example
//! prints the error it gets and checks that it is the right one. None of them panics.
//!
//! Runs on the GPU and on the simulator; a missing GPU is shown with `Device::cuda` where
//! there is none, and with a device number past the last one where there is.

use gpu_runtime::prelude::*;
use gpu_runtime::raw::{Ptr, PtrMut, RawKernel};

#[gpu_kernel]
pub fn copy(x: &[f32], y: &mut [f32]) {
    let i = grid_1d();
    if i < y.len() {
        y[i] = x[i];
    }
}

const BROKEN_C: &str = r#"
extern "C" __global__ void broken(float* x) { x[threadIdx.x] = undeclared_name; }
"#;

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Print `what` went wrong and check the error is the expected kind.
fn show<T>(
    what: &str,
    r: Result<T, GpuError>,
    expected: fn(&GpuError) -> bool,
) -> Result<(), GpuError> {
    match r {
        Err(e) if expected(&e) => {
            let text = e.to_string();
            let first: String = text.lines().take(4).collect::<Vec<_>>().join("\n    ");
            println!("{what}:\n    {first}\n");
            Ok(())
        }
        Err(e) => Err(GpuError::InvalidArgument(format!(
            "{what}: unexpected error {e}"
        ))),
        Ok(_) => Err(GpuError::InvalidArgument(format!("{what}: no error"))),
    }
}

pub fn run() -> Result<(), GpuError> {
    let dev = Device::gpu_or_simulator()?;

    // A GPU that is not there.
    let missing = match dev.backend() {
        gpu_runtime::Backend::Cuda => Device::cuda(64),
        gpu_runtime::Backend::Simulator => Device::cuda(0),
    };
    show("no such GPU", missing, |e| {
        matches!(
            e,
            GpuError::BadOrdinal { .. }
                | GpuError::NoDevice { .. }
                | GpuError::DriverNotFound { .. }
        )
    })?;

    // CUDA C that does not compile: NVRTC's log and the source come back (no GPU needed).
    // SAFETY: this kernel never runs: it does not compile.
    let broken = unsafe { RawKernel::<(PtrMut<f32>,)>::new(BROKEN_C, "broken")? };
    show(
        "a kernel that does not compile",
        broken.definition().cubin(&[], "sm_90"),
        |e| matches!(e, GpuError::Compile { .. } | GpuError::NvrtcNotFound { .. }),
    )?;

    // A raw kernel declared with the wrong types.
    show(
        "a raw kernel declared with the wrong parameter types",
        // SAFETY: the declaration is refused, so there is no kernel to launch.
        unsafe { RawKernel::<(Ptr<f64>,)>::new(BROKEN_C, "broken") },
        |e| matches!(e, GpuError::InvalidArgument(_)),
    )?;

    // Launch configurations the device cannot run.
    let x = dev.to_device(&[1.0f32; 100])?;
    let mut y = dev.zeros::<f32>(100)?;
    show(
        "a block of 2048 threads",
        launch!(copy[1, 2048](&x, &mut y)),
        |e| matches!(e, GpuError::InvalidLaunch { .. }),
    )?;
    show("an empty grid", launch!(copy[0, 128](&x, &mut y)), |e| {
        matches!(e, GpuError::InvalidLaunch { .. })
    })?;

    // An index out of range: `copy` reads one past `x` when `y` is longer. Indices are
    // checked, on the GPU too: the error comes from the launch on the simulator, and from
    // the next synchronisation on the GPU (the launch itself is asynchronous).
    let mut longer = dev.zeros::<f32>(101)?;
    show(
        "an index past the end",
        launch!(copy[1, 128](&x, &mut longer)).and_then(|()| dev.synchronize()),
        |e| {
            matches!(
                e,
                GpuError::OutOfBounds {
                    param: "x",
                    index: 100,
                    len: 100,
                    ..
                }
            )
        },
    )?;

    // Arrays of two devices in one launch.
    if dev.backend() == gpu_runtime::Backend::Cuda {
        let elsewhere = Device::simulator().to_device(&[1.0f32; 100])?;
        show(
            "arrays on two devices",
            launch!(copy[1, 128](&elsewhere, &mut y)),
            |e| matches!(e, GpuError::DeviceMismatch { .. }),
        )?;
    }

    // And what works still works.
    launch!(copy[1, 128](&x, &mut y))?;
    if y.to_host()? != vec![1.0f32; 100] {
        return Err(GpuError::InvalidArgument(
            "the last copy is wrong".to_owned(),
        ));
    }
    println!(
        "every mistake gave its error; the device still works ({})",
        dev.describe()
    );
    Ok(())
}
