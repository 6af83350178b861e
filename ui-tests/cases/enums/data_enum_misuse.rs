// Data enums (#[gpu_enum] with data) in places they cannot go, and misused: a kernel
// parameter, an array element, a struct field, `==`, a field read, a wrong constructor, a
// variant written alone, a pattern leaving fields out, a variant as a function value.
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy, PartialEq)]
pub enum Shape {
    Empty,
    Circle(f32),
    Rect { w: f32, h: f32 },
}

#[gpu_kernel]
pub fn as_parameter(s: Shape, out: &mut [f32]) {
    out[0] = 1.0;
}

#[gpu_kernel]
pub fn as_element(s: &[Shape], out: &mut [f32]) {
    out[0] = 1.0;
}

#[gpu_kernel]
pub fn misuse(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let a = Shape::Circle(x[i]);
    let b = Shape::Rect { w: 1.0, h: x[i] };
    if a == b {
        out[i] = 1.0;
    }
    let w = b.w;
    let c = Shape::Circle(x[i], 2.0);
    let d = Shape::Rect(1.0, 2.0);
    let e = Shape::Square(1.0);
    let f = Shape::Circle;
    out[i] = match a {
        Circle(r) => r,
        _ => 0.0,
    };
    out[i] = match b {
        Shape::Rect { w } => w,
        Shape::Circle => 1.0,
        _ => 0.0,
    };
    out[i] = match b {
        Shape::Rect { w, .. } => w,
        Shape::Circle(r) => r,
    };
}

fn main() {}
