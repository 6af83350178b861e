use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [u32]) {
    let mut j = 0u32;
    while j < 4 {
        j += 1;
        if j > 2 {
            break j;
        }
    }
    a[0] = j;
}

fn main() {}
