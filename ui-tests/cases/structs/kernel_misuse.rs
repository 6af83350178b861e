// Structs in kernels: no operators, no field writes through a `&[T]` array, every field in
// a literal; each error says what to write.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

#[gpu_kernel]
fn add_points(a: &[Point], b: &mut [Point]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() {
        b[i] = a[i] + b[i];
        a[i].x = 1.0;
        b[i] = Point { x: 1.0 };
        let p = a[i];
        p.y = 2.0;
    }
}

fn main() {}
