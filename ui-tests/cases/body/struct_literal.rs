use gpu_runtime::prelude::*;

struct Point {
    x: f32,
    y: f32,
}

#[gpu_kernel]
fn k(a: &mut [f32]) {
    let i = grid_1d();
    let p = Point { x: 1.0, y: 2.0 };
    if i < a.len() {
        a[i] = p.x + p.y;
    }
}

fn main() {}
