use gpu_runtime::prelude::*;

// What lowering refuses, all reported at once.
#[gpu_kernel]
fn k(a: &[Complex32], b: &mut [Complex32], c: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        let mut z = a[i];
        z.re = 1.0;
        let w: Complex32 = 1.0;
        b[i] = z.sin();
        c[i] = z as f32;
        b[i] = Complex::new(1.0, 2.0) + w;
        c[i] = z.x;
        b[i] = Complex32::zero();
    }
}

fn main() {}
