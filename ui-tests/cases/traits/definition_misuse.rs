// What a `#[gpu_device] trait` and its impls may not be, each said on its tokens: a default
// body, a constant, generic parameters, a supertrait, arrays as parameters; `&mut self` on a
// dtype, a typed receiver; an inherent impl of a dtype; complex numbers; a method a
// dtype already has; a dtype named by a path.
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

#[gpu_device]
pub trait Sums {
    fn sum_into(self, out: &mut [f32]);
}

#[gpu_device]
pub trait Grow {
    fn grow(self) -> Self;
}

#[gpu_device]
impl Grow for f32 {
    fn grow(mut self: Self) -> f32 {
        self += 1.0;
        self
    }
}

#[gpu_device]
pub trait Widen {
    fn to_f64(self) -> f64;
    fn halved(self) -> Self;
}

#[gpu_device]
impl Widen for f32 {
    fn to_f64(self) -> f64 {
        self as f64 * 2.0
    }
    fn halved(self) -> f32 {
        self / 2.0
    }
}

#[gpu_device]
impl Widen for gpu_runtime::f16 {
    fn to_f64(self) -> f64 {
        0.0
    }
    fn halved(self) -> gpu_runtime::f16 {
        self
    }
}

fn main() {}
