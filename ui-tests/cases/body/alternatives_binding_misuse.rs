// `|` alternatives that bind names: each alternative must bind the same names, of one type
// and mode (rustc's rules, checked on the pattern as written), and an arm whose body every
// thread of a block must reach together is not split.
use gpu_runtime::prelude::*;

#[gpu_enum]
#[derive(Clone, Copy)]
pub enum Sh {
    Empty,
    Circle(f32),
    Tri(f32, u32),
}

#[gpu_kernel]
pub fn missing_name(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let r = 100.0f32;
    let s = if x[i] > 1.0 { Sh::Circle(x[i]) } else { Sh::Empty };
    out[i] = match s {
        Sh::Circle(r) | Sh::Empty => r,
        _ => -1.0,
    };
}

#[gpu_kernel]
pub fn two_types(x: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    let s = if x[i] > 1.0 { Sh::Circle(x[i]) } else { Sh::Tri(1.0, 2) };
    out[i] = match s {
        Sh::Circle(r) | Sh::Tri(_, r) => r as f32,
        _ => -1.0,
    };
}

#[gpu_kernel]
pub fn barrier_in_split_arm(p: &[u32], out: &mut [u32]) {
    let t = grid_1d();
    match (p[t], 0u32) {
        (0, x) | (x, 0) => {
            let mut s = shared_array::<u32, 4>();
            s[t % 4] = x;
            sync_threads();
            out[t] = s[(t + 1) % 4];
        }
        _ => {}
    }
}

fn main() {}
