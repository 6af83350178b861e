use gpu_runtime::prelude::*;

// f32 tiles would need tf32.
#[gpu_kernel(launch_bounds(128))]
fn f32_tiles(c: &mut [f32]) {
    let sa = shared_array_2d::<f32, 64, 32>();
    let sb = shared_array_2d::<f32, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    mma(&mut acc, &sa, &sb);
    c[0] = acc[0];
}

// A dtype parameter is not an operand yet.
#[gpu_kernel(launch_bounds(128))]
fn generic_tiles<T: Float>(c: &mut [f32]) {
    let sa = shared_array_2d::<T, 64, 32>();
    let sb = shared_array_2d::<T, 32, 64>();
    let mut acc = mma_acc::<64, 64>();
    mma(&mut acc, &sa, &sb);
    c[0] = acc[0];
}

// Copies are of real numbers...
#[gpu_kernel(launch_bounds(128))]
fn copy_bools(flags: &DeviceArray2<bool>, c: &mut [f32]) {
    let mut sf = shared_array_2d::<bool, 8, 8>();
    copy_tile(&mut sf, flags, 0, 0);
    c[0] = if sf[(0, 0)] { 1.0 } else { 0.0 };
}

// ... from 2-D array parameters.
#[gpu_kernel(launch_bounds(128))]
fn copy_from_a_slice(x: &[f32], c: &mut [f32]) {
    let mut sx = shared_array_2d::<f32, 8, 8>();
    copy_tile(&mut sx, x, 0, 0);
    c[0] = sx[(0, 0)];
}

fn main() {}
