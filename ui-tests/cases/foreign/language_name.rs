use gpu_runtime::prelude::*;

#[gpu_extern(source = "__device__ unsigned int lane_id() { return 0; }")]
unsafe extern "C" {
    fn lane_id() -> u32;
}

fn main() {}
