// A method of a `#[gpu_struct]` whose `impl` lacks `#[gpu_device]`: the kernel's call says
// to mark the impl.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

impl Point {
    pub fn norm(&self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

#[gpu_kernel]
fn lengths(p: &[Point], out: &mut [f32]) {
    let i = grid_1d();
    if i < p.len() {
        out[i] = p[i].norm();
    }
}

fn main() {}
