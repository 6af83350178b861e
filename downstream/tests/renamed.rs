//! Kernels of a crate that renamed and re-exported the runtime run (on the simulator).

use downstream::{add_one, double};
use gpu::{launch, Device, GpuError};

#[test]
fn kernels_through_a_renamed_and_a_reexported_runtime_run() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut a = dev.to_device(&[1.0f32, 2.0, 3.0])?;
    launch!(add_one.forall(3)(&mut a))?;
    launch!(double.forall(3)(&mut a))?;
    assert_eq!(a.to_host()?, [4.0, 6.0, 8.0]);
    assert!(add_one::cuda_source().contains("gt_dev_bump"));
    Ok(())
}
