use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let s: f32 = a
        .iter()
        .map(|x| {
            if *x < 0.0 {
                return 0.0;
            }
            *x
        })
        .sum();
    out[0] = s;
}

fn main() {}
