use gpu_runtime::prelude::*;

static HUGE: [f32; 300_000] = [0.5; 300_000];

#[gpu_kernel]
fn k(out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() && i < HUGE.len() {
        out[i] = HUGE[i];
    }
}

fn main() {}
