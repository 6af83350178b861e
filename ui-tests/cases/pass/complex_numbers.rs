use gpu_runtime::prelude::*;
use gpu_runtime::Complex;

// Complex numbers as elements, scalars, locals, generic-free constructors and methods.
#[gpu_kernel]
fn rotate(z: &mut [Complex64], w: Complex64, theta: f64) {
    let i = grid_1d();
    if i < z.len() {
        let r = Complex64::cis(theta) * w;
        let a: Complex64 = z[i];
        let b = Complex::new(a.re, -a.im) + Complex::from_polar(a.norm(), a.arg());
        z[i] = (a * r + b.conj()).sqrt().powf(2.0) - b.exp().ln() / r.powc(w);
    }
}

fn main() {
    let dev = Device::simulator();
    let mut z = dev.to_device(&[Complex64::new(1.0, 2.0)]).unwrap();
    launch!(rotate[1, 1](&mut z, Complex64::new(0.5, 0.0), 1.0)).unwrap();
    let _: Vec<Complex64> = z.to_host().unwrap();
}
