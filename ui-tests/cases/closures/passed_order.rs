use gpu_runtime::prelude::*;

#[gpu_device]
fn bump(k: &mut i32) -> i32 {
    *k += 10;
    0
}

#[gpu_device]
fn call_after<F: Fn() -> i32>(f: F, z: i32) -> i32 {
    f() + z
}

#[gpu_device]
fn two<F: Fn() -> f32, G: FnMut()>(f: F, mut g: G) -> f32 {
    g();
    f()
}

#[gpu_device]
fn call0<F: FnMut() -> f32>(mut f: F) -> f32 {
    f()
}

#[gpu_device]
fn h_last<F: FnMut() -> i32>(z: i32, mut f: F) -> i32 {
    z * 100 + f()
}

// A closure passed to a device function runs during the call: what it captures may not be
// changed elsewhere in the same statement, whose order the GPU's C leaves open.
#[gpu_kernel]
fn k1(out: &mut [f32]) {
    // A `move` closure copies `x` as the statement runs; `bump` changes it.
    let mut x = 1i32;
    let r: i32 = call_after(move || x, bump(&mut x));
    out[0] = r as f32;
}

#[gpu_kernel]
fn k2(a: &[f32], out: &mut [f32], by: usize) {
    let i = grid_1d();
    let mut k = i;
    if k < a.len() && i < out.len() {
        // One closure reads `k`, the other moves it.
        out[i] = two(move || a[k], || k += by);
    }
}

// A `move` closure would copy a local array.
#[gpu_kernel]
fn k3(out: &mut [f32]) {
    let mut buf = [1.0f32; 4];
    out[0] = call0(move || {
        buf[0] += 5.0;
        buf[0]
    });
}

// A closure parameter passed on and called in one call's arguments.
#[gpu_device]
fn g_copy<F: FnMut() -> i32 + Copy>(mut f: F) -> i32 {
    h_last(f(), f)
}

// A `move` closure local naming a local array.
#[gpu_kernel]
fn m1(out: &mut [f32]) {
    let mut s = [2.0f32; 2];
    let mut g = move || {
        s[1] += 1.0;
        s[1]
    };
    out[0] = g();
}

// A closure's copy of `n` is named as `n`.
#[gpu_kernel]
fn m2(out: &mut [f32]) {
    let mut n = 0i32;
    let mut next = move || {
        n += h_last(1, || {
            n += 1;
            n
        });
        n
    };
    let v = next();
    out[0] = v as f32;
}

fn main() {}
