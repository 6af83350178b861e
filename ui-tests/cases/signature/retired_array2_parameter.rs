// `Array2<T>` was the 2-D parameter's name before 0.2; it is ndarray's name too, so the
// error names the one to write.
use gpu_runtime::prelude::*;

#[gpu_kernel]
fn scale_rows(m: &Array2<f32>, out: &mut DeviceArray2<f32>) {
    let (r, c) = grid_2d();
    if r < m.rows() && c < m.cols() {
        out[(r, c)] = 2.0 * m[(r, c)];
    }
}

#[gpu_device]
fn corner(v: &mut Array3<f32>) -> f32 {
    v[(0, 0, 0)]
}

fn main() {}
