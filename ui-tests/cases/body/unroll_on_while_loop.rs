use gpu_runtime::prelude::*;

// NVRTC unrolls loops whose trip count it can see: `#[unroll]` goes on a `for` loop.
#[gpu_kernel]
fn halve(x: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() {
        let mut n = 0;
        #[unroll]
        while n < 4 {
            x[i] *= 0.5;
            n += 1;
        }
    }
}

fn main() {}
