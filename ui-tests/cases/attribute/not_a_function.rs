use gpu_runtime::prelude::*;

#[gpu_kernel]
struct NotAKernel;

fn main() {}
