use gpu_runtime::prelude::*;

// Width and alignment are not among the placeholders kernels support.
#[gpu_kernel]
fn k(a: &[f32], n: u32) {
    println!("{:>8} {}", a[0], n);
}

fn main() {}
