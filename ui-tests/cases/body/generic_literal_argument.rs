// An unsuffixed integer literal passed where a generic device function takes its dtype
// parameter: Rust infers `T` from the context (`u64` here), C++ would deduce `int` from
// the literal; the literal needs a suffix. One passed to a parameter of a number type
// (`k: u32` beside the generic `x`) is fine.
use gpu_runtime::prelude::*;

#[gpu_device]
fn cube<T: Int>(d: T) -> T {
    d * d * d
}

#[gpu_device]
fn shifted<T: Int>(x: T, k: u32) -> T {
    x >> k
}

#[gpu_kernel]
fn k(a: &[u64], out: &mut [u64]) {
    let i = grid_1d();
    if i < out.len() && i < a.len() {
        let r: u64 = cube(5000);
        out[i] = r + shifted(a[i], 3);
    }
}

fn main() {}
