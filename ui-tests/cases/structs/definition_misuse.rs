// What a #[gpu_struct] may not be: each says what to write instead.
use gpu_runtime::prelude::*;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Generic<T> {
    pub x: T,
}

#[gpu_struct]
#[derive(Clone, Copy)]
#[repr(C, packed)]
pub struct Packed {
    pub a: u8,
    pub b: f32,
}

const N: usize = 3;

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct WithArrays {
    pub v: [f32; N],
    pub m: [[f32; 3]; 3],
}

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct WithString {
    pub name: String,
}

#[gpu_struct]
#[derive(Clone, Copy)]
pub struct Tuple(f32, f32);

fn main() {}
