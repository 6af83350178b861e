// What a #[gpu_enum] with data may not be: variants with values, array or non-dtype
// fields, generic, without `Copy`.
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum Numbered {
    Point = 1,
    Circle(f32),
}

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum Fields {
    Many([f32; 3]),
    Boxed { v: Vec<f32> },
}

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum Generic<T> {
    One(T),
}

#[gpu_enum]
#[derive(Clone)]
pub enum NotCopy {
    Empty,
    Full(f32),
}

fn main() {}
