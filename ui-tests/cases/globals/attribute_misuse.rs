use gpu_runtime::prelude::*;

// No single address for the device copies to be found by.
#[gpu_global]
const TABLE: [u32; 4] = [0; 4];

// Written through kernels and `write`, not as a `static mut`.
#[gpu_global]
static mut COUNTS: [u32; 4] = [0; 4];

// One-dimensional arrays of numbers only.
#[gpu_global]
static GRID: [[f32; 4]; 4] = [[0.0; 4]; 4];

#[gpu_global]
static HALVES: [f16; 4] = [f16::ZERO; 4];

#[gpu_global(shared)]
static OPTION: [u32; 4] = [0; 4];

// Constant memory is 64 KB.
#[gpu_global(constant)]
static TOO_LARGE: [f32; 20_000] = [0.0; 20_000];

fn main() {}
