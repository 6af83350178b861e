use gpu_runtime::prelude::*;

#[gpu_device]
fn apply<F: Fn(f32) -> f32>(f: F, x: f32) -> f32 {
    f(x)
}

#[gpu_device]
fn g(x: f32) -> f32 {
    x * 3.0
}

// Misuses of closures passed to device functions: each refused on its tokens with what to
// write.
#[gpu_kernel]
fn k(a: &[f32], out: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() && i < out.len() {
        // The function may call it on some threads only: no barrier inside.
        out[i] = apply(
            |v: f32| {
                sync_threads();
                v
            },
            a[i],
        );
        // Nor a shared array.
        out[i] = apply(
            |v: f32| {
                let tile = shared_array::<f32, 32>();
                v + tile[0]
            },
            a[i],
        );
        // `return` would leave the kernel.
        out[i] = apply(
            |v: f32| {
                if v > 0.0 {
                    return v;
                }
                0.0
            },
            a[i],
        );
        // A pattern as a parameter.
        out[i] = apply(|(v, w)| v, a[i]);
        // A closure called where it is written.
        out[i] = (|v: f32| v + 1.0)(a[i]);
    }
}

fn main() {}
