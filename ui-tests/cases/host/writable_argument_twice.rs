// The hidden launcher's arguments are neither `Clone` nor `Copy`: one exclusive borrow of
// an array makes one writable argument, so safe code cannot hand a kernel the same array
// for two parameters where it writes one (the C declares every array `__restrict__`).
use gpu_runtime::__private::{launch_cuda, Arg};
use gpu_runtime::prelude::*;
use gpu_runtime::SliceArgMut;

#[gpu_kernel]
fn shift(a: &[f32], out: &mut [f32]) {
    let i = thread_idx().x as usize;
    if i + 1 < a.len() && i < out.len() {
        out[i] = a[i + 1];
    }
}

fn main() -> Result<(), GpuError> {
    let dev = Device::simulator();
    let mut buf = dev.zeros::<f32>(64)?;
    let w = Arg::array_mut(buf.__array_mut());
    launch_cuda(&dev, shift::definition(), &[], &LaunchConfig::new(1, 64), &[w, w])
}
