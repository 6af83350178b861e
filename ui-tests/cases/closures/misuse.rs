use gpu_runtime::prelude::*;

// Misuses of closures bound to locals: each refused on its tokens with what to write.
#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() && i < out.len() {
        let double = |x: f32| x * 2.0;
        // A closure is called, not passed on.
        let again = double;
        // Its parameters say how many arguments it takes.
        out[i] = double(a[i], 1.0);
        // `return` in a closure would leave the kernel.
        let early = |x: f32| {
            if x > 0.0 {
                return x;
            }
            0.0
        };
        out[i] = early(a[i]);
    }
}

fn main() {}
