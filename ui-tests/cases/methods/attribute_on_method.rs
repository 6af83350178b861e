// `#[gpu_device]` on a method inside an impl: it belongs on the impl.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

impl Point {
    #[gpu_device]
    pub fn norm(&self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }

    #[gpu_device]
    pub fn origin() -> Self {
        Point { x: 0.0, y: 0.0 }
    }
}

fn main() {}
