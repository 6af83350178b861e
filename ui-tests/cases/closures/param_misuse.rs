use gpu_runtime::prelude::*;

// Misuses of closure parameters: each refused on its tokens with what to write.

// A kernel takes no closure.
#[gpu_kernel]
fn k<F: Fn(f32) -> f32>(f: F, out: &mut [f32]) {
    out[0] = f(1.0);
}

// A closure lent by reference.
#[gpu_device]
fn by_ref<F: Fn(f32) -> f32>(f: &F, x: f32) -> f32 {
    f(x)
}

// A bound beside `Fn` that a lambda may not meet.
#[gpu_device]
fn debug<F: Fn(f32) -> f32 + std::fmt::Debug>(f: F, x: f32) -> f32 {
    f(x)
}

// A reference among the closure's parameters.
#[gpu_device]
fn refs<F: Fn(&f32) -> f32>(f: F, x: f32) -> f32 {
    f(&x)
}

// `T` only in the closure's types: the GPU's C cannot deduce it.
#[gpu_device]
fn only<T: Float, F: Fn(T) -> T>(f: F) -> f32 {
    1.0
}

#[gpu_device]
fn uses<F: Fn(f32)>(f: F, x: f32) -> f32 {
    // Copied, not called.
    let g = f;
    // Two arguments for one parameter.
    f(x, x);
    // A closure returning `()` used as a value.
    let y = f(x);
    x
}

fn main() {}
