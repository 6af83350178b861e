// A struct with padding cannot be a #[gpu_struct]: copies and kernels would read the gap.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Gappy {
    pub flag: u8,
    pub value: f64,
}

fn main() {}
