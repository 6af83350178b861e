use gpu_runtime::prelude::*;

// Integer rounding methods kernels lack: each refused with the arithmetic to write.
#[gpu_kernel]
fn rounding(out: &mut [u32], n: u32) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = n.div_ceil(16) + n.next_multiple_of(8) + n.ilog2();
    }
}

fn main() {}
