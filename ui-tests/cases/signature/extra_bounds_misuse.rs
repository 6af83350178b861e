use gpu_runtime::prelude::*;

// A bound the dtype trait does not give would narrow the dtypes the kernel compiles for.
#[gpu_kernel]
fn shown<T: Float + std::fmt::Display>(x: &[T], out: &mut [T]) {
    let i = grid_1d();
    if i < x.len() && i < out.len() {
        out[i] = x[i];
    }
}

// An operator whose output is another type.
#[gpu_device]
fn widened<T: Num + core::ops::Add<Output = f64>>(a: T, b: T) -> T {
    a
}

// Two dtype traits.
#[gpu_kernel]
fn both<T: Float + Int>(x: &[T]) {}

// A `where` clause on something that is not a dtype parameter.
#[gpu_kernel]
fn elsewhere<T: Float>(x: &[T])
where
    u32: Copy,
{
}

fn main() {}
