use gpu_runtime::prelude::*;

#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let ragged = [[1.0f32, 2.0], [3.0]];
    let mixed = [1.0f32, [2.0, 3.0]];
    let c = 'x';
    let s = "text";
    out[0] = [a[0], a[1]][1] + ragged[0][0] + mixed[0];
}

fn main() {}
