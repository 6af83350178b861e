use gpu_runtime::prelude::*;

// No launch_bounds: the accumulator cannot be spread over an unknown block.
#[gpu_kernel]
fn no_bounds(c: &mut [f32]) {
    let acc = mma_acc::<64, 64>();
    c[0] = acc[0];
}

// 24 rows do not split into 16-row fragments.
#[gpu_kernel(launch_bounds(128))]
fn ragged_acc(c: &mut [f32]) {
    let acc = mma_acc::<24, 64>();
    c[0] = acc[0];
}

// A shape that is not literals.
const BM: usize = 64;
#[gpu_kernel(launch_bounds(128))]
fn named_shape(c: &mut [f32]) {
    let acc = mma_acc::<BM, 64>();
    c[0] = acc[0];
}

// Tiles that do not make the accumulator's product, and a depth not a multiple of 16.
#[gpu_kernel(launch_bounds(128))]
fn mixed_tiles(c: &mut [f32]) {
    let sa = shared_array_2d::<bf16, 64, 32>();
    let sb = shared_array_2d::<bf16, 16, 64>();
    let sc = shared_array_2d::<bf16, 64, 24>();
    let sd = shared_array_2d::<bf16, 24, 64>();
    let mut acc = mma_acc::<64, 64>();
    mma(&mut acc, &sa, &sb);
    mma(&mut acc, &sc, &sd);
    c[0] = acc[0];
}

// An accumulator that is not one, and tiles passed without `&`.
#[gpu_kernel(launch_bounds(128))]
fn not_an_accumulator(c: &mut [f32]) {
    let sa = shared_array_2d::<bf16, 64, 32>();
    let sb = shared_array_2d::<bf16, 32, 64>();
    let mut acc = [0.0f32; 32];
    mma(&mut acc, &sa, &sb);
    let mut real = mma_acc::<64, 64>();
    mma(&mut real, sa, sb);
    c[0] = acc[0] + real[0];
}

// Sides past what a block's shared memory could feed.
#[gpu_kernel(launch_bounds(128))]
fn huge_acc(c: &mut [f32]) {
    let acc = mma_acc::<4294967296, 4294967296>();
    c[0] = acc[0];
}

// The language's names cannot be taken by device functions.
#[gpu_device]
fn wait_tiles(n: u32) -> u32 {
    n
}

// Accumulators belong to kernels.
#[gpu_device]
fn in_device() -> f32 {
    let acc = mma_acc::<64, 64>();
    acc[0]
}

fn main() {}
