use gpu_runtime::prelude::*;

// What the check refuses once types are known, all reported at once.
#[gpu_kernel]
fn k(a: &[Complex32], b: &mut [Complex32], flags: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        let z = a[i];
        flags[i] = (z < a[0]) as u32;
        b[i] = z % a[0];
        atomic_add(b, 0, z);
        b[i] = shfl_down_sync(0xffffffff, z, 1);
        let d: f64 = z.to_f64();
        flags[i] = d as u32;
    }
}

fn main() {}
