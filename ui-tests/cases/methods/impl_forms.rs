// What a `#[gpu_device] impl` may not be: of a trait without `#[gpu_device]`, generic,
// holding constants, or
// for a type that is not a path.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

pub trait Norm {
    fn norm(&self) -> f32;
}

#[gpu_device]
impl Norm for Point {
    fn norm(&self) -> f32 {
        self.x + self.y
    }
}

#[gpu_device]
impl Point {
    const ORIGIN: f32 = 0.0;

    pub fn sum(&self) -> f32 {
        self.x + self.y
    }
}

#[gpu_device]
impl<'a> Point {
    pub fn diff(&self) -> f32 {
        self.x - self.y
    }
}

fn main() {}
