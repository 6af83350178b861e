use gpu_runtime::prelude::*;

// Misuses of `try_from`: each refused on its tokens with what to write.
#[gpu_kernel]
fn k(a: &[i64], out: &mut [u8]) {
    let i = grid_1d();
    if i < a.len() && i < out.len() {
        // A `Result` kept: read it where it is made.
        let r = u8::try_from(a[i]);
        // A method of `Result` the language does not have.
        out[i] = u8::try_from(a[i]).map_err(|_| 0u8).unwrap_or(0);
        // The error bound: it holds nothing a kernel can use.
        out[i] = match u8::try_from(a[i]) {
            Ok(b) => b,
            Err(e) => 0,
        };
        // `try_into` leaves the target to the context.
        let b: u8 = a[i].try_into().unwrap_or(0);
    }
}

fn main() {}
