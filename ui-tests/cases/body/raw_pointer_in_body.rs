use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let p = a.as_mut_ptr();
    if i < a.len() {
        unsafe { *p.add(i) = 0.0 };
    }
}

fn main() {}
