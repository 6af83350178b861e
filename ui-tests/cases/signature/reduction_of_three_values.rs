use gpu_runtime::prelude::*;

#[gpu_reduce]
fn add3(a: f32, b: f32, c: f32) -> f32 {
    a + b + c
}

#[gpu_reduce(with = 3)]
fn square(x: f32) -> f32 {
    x * x
}

fn main() {}
