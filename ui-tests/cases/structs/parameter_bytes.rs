// A struct passed by value whose size is over CUDA's 32764 bytes of kernel parameters: a
// compile error on both backends, saying to pass it in an array.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Table {
    pub values: [f32; 9000],
}

#[gpu_kernel]
fn lookup(t: Table, out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = t.values[i % 9000];
    }
}

fn main() {}
