// Calls of struct methods the kernel cannot make: on a value whose type comes from a
// method (named first, it works), a method the impl lacks, `&mut self` on an element of
// an array the kernel only reads.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

#[gpu_device]
impl Point {
    pub fn new(x: f32, y: f32) -> Self {
        Point { x, y }
    }
    pub fn norm(&self) -> f32 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
    pub fn scale(&mut self, s: f32) {
        self.x *= s;
        self.y *= s;
    }
    pub fn doubled_alias(&mut self) {
        let me = self;
        me.scale(2.0f32);
    }
}

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Path {
    pub pts: [Point; 2],
}

#[gpu_kernel]
fn element_forms(paths: &mut [Path], ps: &mut [Point]) {
    let i = grid_1d();
    if i < paths.len() && i < ps.len() {
        let mut t = [Point { x: 1.0, y: 2.0 }; 4];
        t[1].scale(2.0f32);
        paths[i].pts[0].scale(2.0f32);
        unsafe { ps.get_unchecked(i).scale(2.0f32) };
        ps[i] = t[1];
    }
}

#[gpu_kernel]
fn chained(out: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() {
        out[i] = Point::new(1.0f32, 2.0f32).norm();
    }
}

#[gpu_kernel]
fn missing(p: &[Point], out: &mut [f32]) {
    let i = grid_1d();
    if i < p.len() {
        out[i] = p[i].length();
    }
}

#[gpu_kernel]
fn read_only(p: &[Point]) {
    let i = grid_1d();
    if i < p.len() {
        p[i].scale(2.0f32);
    }
}

fn main() {}
