use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [u32]) {
    'rows: for i in 0..4usize {
        a[i] = 1;
    }
    for j in 0..4usize {
        if j > 2 {
            break 'rows;
        }
    }
}

fn main() {}
