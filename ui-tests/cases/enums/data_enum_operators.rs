// A data enum (#[gpu_enum] with data) compared, cast or added: refused with what to write.
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
pub enum Shape {
    Empty,
    Circle(f32),
}

#[gpu_kernel]
pub fn operators(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let a = Shape::Circle(x[i]);
    let b = Shape::Empty;
    if a == b {
        out[i] = 1.0;
    }
    let n = a as i32;
    out[i] = n as f32;
}

fn main() {}
