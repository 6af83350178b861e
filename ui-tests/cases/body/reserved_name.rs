use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [u32]) {
    let __gpu_acc1 = 3u32;
    a[0] = __gpu_acc1;
}

fn main() {}
