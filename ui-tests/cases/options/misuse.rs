use gpu_runtime::prelude::*;

#[gpu_device]
fn halve(x: i32) -> Option<i32> {
    if x % 2 == 0 {
        Some(x / 2)
    } else {
        None
    }
}

// Misuses of `Option` in kernels: each refused on its tokens with what to write.
#[gpu_kernel]
fn k(a: &[i32], out: &mut [i32]) {
    let i = grid_1d();
    if i < a.len() && i < out.len() {
        // An `Option` is not a number.
        let o = Some(a[i]);
        out[i] = o;
        // A match must cover `None`.
        out[i] = match o {
            Some(x) => x,
        };
        // `Some` holds one value.
        if let Some(x, y) = o {
            out[i] = x + y;
        }
        // A device function's `Option` is named with its type.
        let h = halve(a[i]);
        out[i] = h.unwrap_or(0);
        // `Some(..)` matches an `Option`, not a number.
        out[i] = match a[i] {
            Some(x) => x,
            _ => 2,
        };
        // The `else` of `let .. else` must leave.
        let Some(v) = o else {
            out[i] = -1;
        };
        out[i] = v;
        // `checked_neg` is not among the checked operations.
        let n = a[i].checked_neg();
        out[i] = n.unwrap_or(0);
    }
}

fn main() {}
