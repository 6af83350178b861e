use gpu_runtime::prelude::*;

// Four elements at a time from shared memory come from a 1-D shared array.
#[gpu_kernel]
fn rows_of_four(y: &mut [f32]) {
    let tile = shared_array_2d::<f32, 8, 128>();
    let v = load4(tile, 0);
    if y.len() > 0 {
        y[0] = v[0];
    }
}

fn main() {}
