//! User traits with static dispatch: `#[gpu_device] trait`s implemented for dtypes and
//! `#[gpu_struct]`s, called on concrete values (`v.step(3)`, `r.area()`), through a path
//! (`T::step(x, 1)`, `T::unit()`), and on a generic function's dtype parameter (`fn
//! stepped<T: Num + Step>`), whose dtypes are those that implement the trait.

use gpu_runtime::prelude::*;
use rand::Rng;

use super::support::*;

/// A dtype's step, implemented for three dtypes only: a kernel generic over `T: Num +
/// Step` has those three signatures.
#[gpu_device]
pub trait Step {
    /// `self` moved by `k`, each dtype its own way.
    fn step(self, k: u32) -> Self;
    /// A constant of the type.
    fn unit() -> Self;
}

#[gpu_device]
impl Step for f32 {
    fn step(self, k: u32) -> f32 {
        self * 2.0 + k as f32
    }
    fn unit() -> f32 {
        0.5
    }
}

#[gpu_device]
impl Step for f64 {
    fn step(self, k: u32) -> f64 {
        self * 3.0 - k as f64
    }
    fn unit() -> f64 {
        0.25
    }
}

#[gpu_device]
impl Step for i32 {
    fn step(self, k: u32) -> i32 {
        (self ^ k as i32) - 3
    }
    fn unit() -> i32 {
        7
    }
}

/// A shape: a trait implemented for a `#[gpu_struct]`, with `&self` and `self` methods.
#[gpu_device]
pub trait Shape {
    fn area(&self) -> f32;
    fn scaled(self, by: f32) -> Self;
}

#[gpu_struct]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rect {
    pub w: f32,
    pub h: f32,
}

#[gpu_device]
impl Shape for Rect {
    fn area(&self) -> f32 {
        self.w * self.h
    }
    fn scaled(self, by: f32) -> Rect {
        Rect {
            w: self.w * by,
            h: self.h * by,
        }
    }
}

/// A generic device function calling the trait on its dtype parameter.
#[gpu_device]
pub fn stepped<T: Num + Step>(x: T, k: u32) -> T {
    let s: T = x.step(k);
    let u: T = T::unit();
    s + u
}

/// `out[i] = stepped(x[i], i % 5) + T::step(x[i], 1)`; `areas[i]` from the rectangles'
/// trait methods and an `f32`'s.
#[gpu_kernel(fmad = false)]
pub fn trait_calls<T: Num + Step>(x: &[T], rects: &[Rect], out: &mut [T], areas: &mut [f32]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        let a: T = stepped(x[i], (i % 5) as u32);
        let b: T = T::step(x[i], 1);
        out[i] = a + b;
    }
    if i < rects.len() && i < areas.len() {
        let r: Rect = rects[i].scaled(2.0f32);
        let v: f32 = 1.5;
        let w: f32 = v.step(3);
        areas[i] = r.area() + w + f32::unit();
    }
}

fn check_signature<T>(
    dev: &Device,
    out: &mut Outputs,
    names: [&'static str; 2],
    x: &[T],
    rects: &[Rect],
    want: impl Fn(usize, T) -> T,
) -> CaseResult<()>
where
    T: Num + Step + gpu_runtime::Dtype + Copy + Into<f64>,
{
    let len = x.len();
    let (dx, dr) = (dev.to_device(x)?, dev.to_device(rects)?);
    let poison = T::from_i32(-99);
    let mut got = poisoned(dev, len, poison)?;
    let mut areas = poisoned(dev, rects.len(), f32::NAN)?;
    let threads = len.max(rects.len());
    launch!(trait_calls[blocks(threads, 128), 128](&dx, &dr, &mut got, &mut areas))?;
    let expect: Vec<T> = (0..len).map(|i| want(i, x[i])).collect();
    check(out, names[0], &got.to_host()?, &expect, 0.0)?;
    // 1.5 stepped by 3 as f32's `step` does, and f32's unit.
    let want_areas: Vec<f32> = rects
        .iter()
        .map(|r| (r.w * 2.0) * (r.h * 2.0) + (1.5 * 2.0 + 3.0) + 0.5)
        .collect();
    check(out, names[1], &areas.to_host()?, &want_areas, 0.0)?;
    Ok(())
}

pub fn case_user_traits(dev: &Device, seed: u64) -> CaseResult {
    let mut r = rng(seed);
    let mut out = Outputs::new();
    let len = r.random_range(1..3000);
    let rects: Vec<Rect> = (0..r.random_range(1..500))
        .map(|_| Rect {
            w: r.random_range(0.0..10.0),
            h: r.random_range(0.0..10.0),
        })
        .collect();
    let xf = uniform_f32(&mut r, len, -100.0, 100.0);
    check_signature(dev, &mut out, ["f32", "f32 areas"], &xf, &rects, |i, x| {
        ((x * 2.0 + (i % 5) as f32) + 0.5) + (x * 2.0 + 1.0)
    })?;
    let xd = uniform_f64(&mut r, len, -100.0, 100.0);
    check_signature(dev, &mut out, ["f64", "f64 areas"], &xd, &rects, |i, x| {
        ((x * 3.0 - (i % 5) as f64) + 0.25) + (x * 3.0 - 1.0)
    })?;
    let xi: Vec<i32> = (0..len)
        .map(|_| r.random_range(-100_000..100_000))
        .collect();
    check_signature(dev, &mut out, ["i32", "i32 areas"], &xi, &rects, |i, x| {
        (((x ^ (i % 5) as i32) - 3) + 7) + ((x ^ 1) - 3)
    })?;
    Ok(out)
}
