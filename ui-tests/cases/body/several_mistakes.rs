use gpu_runtime::prelude::*;

// Every mistake is reported, each on its own tokens.
#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let f = |x: f32| x;
    dbg!(i);
    let s = String::new();
}

fn main() {}
