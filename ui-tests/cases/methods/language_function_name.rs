// A device function or method named like a language function would be the language's on
// one backend and the user's on the other: refused where it is defined.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Lane {
    pub v: u32,
}

#[gpu_device]
impl Lane {
    fn lane_id() -> u32 {
        7
    }
}

#[gpu_device]
fn grid_1d() -> usize {
    0
}

fn main() {}
