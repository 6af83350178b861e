//! Which public types may cross threads: checked at compile time, so a change that makes
//! one lose `Send` or `Sync` fails to build. Every type listed is both.

use gpu_runtime::def::KernelDef;
use gpu_runtime::raw::{PtrMut, RawKernel, RawModule};
use gpu_runtime::*;

fn send_sync<T: Send + Sync>() {}

#[test]
fn public_types_are_send_and_sync() {
    send_sync::<Device>();
    send_sync::<DeviceArray<f32>>();
    send_sync::<DeviceArray2<f64>>();
    send_sync::<DeviceArray3<i32>>();
    send_sync::<DeviceSlice<'static, f32>>();
    send_sync::<DeviceSliceMut<'static, f32>>();
    send_sync::<Stream>();
    send_sync::<Event>();
    send_sync::<PinnedBuffer<f32>>();
    send_sync::<LaunchConfig<'static>>();
    send_sync::<KernelDef>();
    send_sync::<RawKernel<(PtrMut<f32>, u32)>>();
    send_sync::<RawModule>();
    send_sync::<Timing>();
    send_sync::<MemoryInfo>();
    send_sync::<GpuError>();
    send_sync::<FunctionAttributes>();
    send_sync::<Backend>();
}
