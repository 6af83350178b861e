use gpu_runtime::prelude::*;

// The standard forms' misuses: each refused on its tokens with what to write.
#[gpu_kernel]
fn forms<T: Int>(a: &mut [T], b: &mut [f32], k: &[u32], out: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() && i < b.len() && i < k.len() && i < out.len() {
        // A dtype parameter names no unsigned type of its width.
        let d = a[i].abs_diff(a[0]);
        // An integer has no bits to take as a float's.
        out[i] = k[i].to_bits();
        // `mem::swap`'s places are named twice: an index with an effect would run twice.
        std::mem::swap(&mut b[k[atomic_add(out, 0, 1u32) as usize] as usize], &mut b[0]);
        // `sin_cos` is taken apart in a `let`, not used as a value.
        let s = b[i].sin_cos().0;
        b[i] = s;
        a[i] = d;
    }
}

fn main() {}
