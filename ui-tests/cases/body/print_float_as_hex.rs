use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32]) {
    println!("{:x}", a[0]);
}

fn main() {}
