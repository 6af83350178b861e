// Where a data enum (#[gpu_enum] with data) cannot live: a struct's field, a shared array,
// an elementwise function's input.
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
pub enum Shape {
    Empty,
    Circle(f32),
}

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Holder {
    pub s: Shape,
    pub x: f32,
}

#[gpu_kernel]
pub fn places(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let shared = shared_array::<Shape, 32>();
    out[i] = 0.0;
}

#[gpu_elementwise]
pub fn area(s: Shape) -> f32 {
    match s {
        Shape::Circle(r) => r * r,
        Shape::Empty => 0.0,
    }
}

fn main() {}
