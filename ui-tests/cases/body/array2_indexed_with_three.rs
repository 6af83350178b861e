use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(u: &mut DeviceArray2<f32>) {
    let (i, j) = grid_2d();
    if i < u.rows() && j < u.cols() {
        u[(i, j, 0)] = 0.0;
    }
}

fn main() {}
