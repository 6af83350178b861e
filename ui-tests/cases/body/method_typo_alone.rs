// A misspelled method on a number, alone: it may be a user trait's, so the kernel leaves it
// to rustc, whose error names the method it is near.
use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i].sqr();
    }
}

fn main() {}
