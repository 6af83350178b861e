// `clamp` checks its bounds with a statement: it is a `let`'s or an assignment's whole
// value, and the error says to bind it first.
use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(f: &mut [f32]) {
    let i = grid_1d();
    if i < f.len() {
        f[i] = 1.0 + f[i].clamp(0.0, 1.0);
    }
}

fn main() {}
