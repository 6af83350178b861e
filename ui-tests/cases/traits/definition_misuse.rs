// What a `#[gpu_device] trait` and its impls may not be, each said on its tokens: a default
// body, a constant, generic parameters, a supertrait; `&mut self` on a dtype; an inherent
// impl of a dtype; complex numbers.
use gpu_runtime::prelude::*;

#[gpu_device]
pub trait WithDefault {
    fn twice(self) -> Self;
    fn thrice(self) -> Self
    where
        Self: Sized,
    {
        self
    }
}

#[gpu_device]
pub trait WithConst {
    const K: f32;
    fn k(self) -> f32;
}

#[gpu_device]
pub trait Generic<U> {
    fn with(self, u: U) -> Self;
}

#[gpu_device]
pub trait Sub: Copy {
    fn sub_one(self) -> Self;
}

#[gpu_device]
pub trait Bump {
    fn bump(&mut self);
}

#[gpu_device]
impl Bump for f32 {
    fn bump(&mut self) {
        *self += 1.0;
    }
}

#[gpu_device]
impl f64 {
    fn half(self) -> f64 {
        self / 2.0
    }
}

#[gpu_device]
pub trait Conj {
    fn conj2(self) -> Self;
}

#[gpu_device]
impl Conj for Complex32 {
    fn conj2(self) -> Complex32 {
        self
    }
}

fn main() {}
