use gpu_runtime::prelude::*;

// Both views would be the same bytes.
#[gpu_kernel]
fn k(a: &mut [f32]) {
    let mut f = dynamic_shared_array::<f32>();
    let mut u = dynamic_shared_array::<u32>();
    f[0] = 1.0;
    u[1] = 2;
    a[0] = f[1];
}

fn main() {}
