// Calls of user traits that cannot be translated, each said on its tokens: a number whose
// type is not known (as in Rust), a method on a dtype parameter with no user-trait bound,
// an impl without `#[gpu_device]`, a trait without it, a method of Rust's numbers the
// language lacks (its own refusal, not a trait's), a standard trait a dtype bound does not imply.
use gpu_runtime::prelude::*;

#[gpu_device]
pub trait Sq {
    fn sq(self) -> Self;
}

#[gpu_device]
impl Sq for f32 {
    fn sq(self) -> f32 {
        self * self
    }
}

impl Sq for f64 {
    fn sq(self) -> f64 {
        self * self
    }
}

#[gpu_kernel]
fn untyped(out: &mut [f32]) {
    let i = grid_1d();
    let y = 2.0;
    if i < out.len() {
        out[i] = y.sq();
    }
}

#[gpu_kernel]
fn unbounded<T: Float>(x: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i].sq();
    }
}

#[gpu_kernel]
fn through_unmarked(x: &[f64], out: &mut [f64]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i].sq();
    }
}

pub trait Plain {
    fn plain(self) -> Self;
}

impl Plain for f32 {
    fn plain(self) -> f32 {
        self
    }
}

#[gpu_kernel]
fn unmarked_trait<T: Float + Plain>(x: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i].plain();
    }
}

#[gpu_kernel]
fn rust_method(x: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i].is_positive() as i32;
    }
}

#[gpu_kernel]
fn displayed<T: Float + std::fmt::Display>(x: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i];
    }
}

fn main() {}
