use gpu_runtime::prelude::*;

#[gpu_kernel]
fn scale<T>(a: &mut [T])
where
    T: Float,
{
    let _ = grid_1d();
}

fn main() {}
