use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    'outer: for i in 0..4usize {
        for j in 0..4usize {
            if i + j > 3 {
                break 'outer;
            }
        }
    }
}

fn main() {}
