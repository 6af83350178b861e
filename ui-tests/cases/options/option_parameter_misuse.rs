// `Option` parameters a call on the GPU cannot serve, each said on its tokens: a dtype
// parameter that appears only inside `Option`, an unsuffixed literal beside an `Option`
// argument (or inside `Some`), and `Option` inputs of elementwise and reduce functions.
use gpu_runtime::prelude::*;

#[gpu_device]
fn pick<T: Float>(o: Option<T>) -> T {
    o.unwrap_or(T::zero())
}

#[gpu_device]
fn cube_or<T: Int>(o: Option<T>, d: T) -> T {
    let v = o.unwrap_or(d);
    v * v * v
}

#[gpu_device]
fn or_zero(o: Option<f32>) -> f32 {
    o.unwrap_or(0.0)
}

#[gpu_kernel]
fn k(out: &mut [u64], outf: &mut [f32]) {
    let i = grid_1d();
    if i < out.len() && i < outf.len() {
        let r: u64 = cube_or(None, 5000);
        out[i] = r;
        outf[i] = or_zero(Some(2.0));
    }
}

#[gpu_elementwise]
fn shifted(o: Option<f32>) -> f32 {
    o.unwrap_or(1.0)
}

#[gpu_reduce(with = add)]
fn add_or(o: Option<f32>) -> f32 {
    o.unwrap_or(0.0)
}

#[gpu_reduce]
fn add(a: f32, b: f32) -> f32 {
    a + b
}

fn main() {}
