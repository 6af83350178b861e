use gpu_runtime::prelude::*;

// Under a branch on the thread's index.
#[gpu_kernel(launch_bounds(128))]
fn under_thread_branch(a: &DeviceArray2<bf16>, c: &mut [f32]) {
    let mut sa = shared_array_2d::<bf16, 64, 32>();
    let mut sb = shared_array_2d::<bf16, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    let t = thread_idx().x as usize;
    if t < 64 {
        copy_tile(&mut sa, a, 0, 0);
    }
    let half = t / 64;
    for _ in 0..half {
        mma(&mut acc, &sa, &sb);
    }
    c[0] = acc[0];
}

// After some threads may have left, and in a loop some threads may leave early.
#[gpu_kernel(launch_bounds(128))]
fn after_an_exit(a: &DeviceArray2<bf16>, b: &DeviceArray2<bf16>, c: &mut [f32]) {
    let mut sa = shared_array_2d::<bf16, 64, 32>();
    let mut sb = shared_array_2d::<bf16, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    for k0 in (0..a.cols()).step_by(32) {
        if c[k0] > 0.0 {
            break;
        }
        copy_tile(&mut sb, b, k0, 0);
    }
    assert!(c[0] < 1.0);
    mma(&mut acc, &sa, &sb);
    c[0] = acc[0];
}

fn main() {}
