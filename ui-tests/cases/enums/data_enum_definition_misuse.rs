// What a #[gpu_enum] with data may not be: variants with values, array or non-dtype
// fields, generic, without `Copy`, two fields of one C name, `#[cfg]` on a variant.
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

#[gpu_enum]
#[derive(Clone, Copy)]
#[allow(non_camel_case_types)]
pub enum Collide {
    A { b_c: f32 },
    A_b { c: f32 },
}

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum Configured {
    Empty,
    #[cfg(any())]
    Hidden(f32),
    Full(f32),
}

fn main() {}
