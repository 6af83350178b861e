use gpu_runtime::prelude::*;

#[gpu_device]
fn repeat<F: FnMut(u32)>(n: u32, mut f: F) {
    for k in 0..n {
        f(k);
    }
}

// A closure that changes what it captures is not `Copy`: the first function it is passed to
// takes it, as Rust moves it.
#[gpu_kernel]
fn twice(out: &mut [u32]) {
    let mut c = 0u32;
    let inc = |j: u32| c += j;
    repeat(3, inc);
    repeat(3, inc);
    out[0] = c;
}

#[gpu_kernel]
fn in_a_loop(out: &mut [u32]) {
    let mut c = 0u32;
    let inc = |j: u32| c += j;
    for _ in 0..2 {
        repeat(3, inc);
    }
    out[0] = c;
}

#[gpu_kernel]
fn called_after(out: &mut [u32]) {
    let mut c = 0u32;
    let mut inc = |j: u32| c += j;
    repeat(3, inc);
    inc(1);
    out[0] = c;
}

fn main() {}
