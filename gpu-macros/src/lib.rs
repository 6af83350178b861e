//! The attributes of `gpu-runtime`, which re-exports them; depend on `gpu-runtime`, not on
//! this crate.
//!
//! This crate is a thin shell: each attribute hands its tokens to `gpu-translate`, where
//! parsing, lowering, checking and emission live as plain functions that tests call.

/// Translate a restricted Rust function into a CUDA kernel with a typed launcher.
///
/// See the `gpu-runtime` crate documentation for the kernel language.
#[proc_macro_attribute]
pub fn gpu_kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_kernel(attr.into(), item.into()).into()
}

/// Make a function callable from kernels: a device function (Numba's
/// `@cuda.jit(device=True)`). It takes scalars and 1-D arrays, may return a scalar, may be
/// generic over dtypes like a kernel, and may call other device functions; the kernels
/// that call it compile its translated C++ with them. It stays an ordinary Rust function.
#[proc_macro_attribute]
pub fn gpu_device(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_device(attr.into(), item.into()).into()
}

/// Map a scalar function over arrays: Numba's `@vectorize(target="cuda")`, CuPy's
/// `ElementwiseKernel`. The function stays a Rust function and a device function; its
/// module gains `map(&a, &b, .., &mut out)` and `call(&a, &b, ..) -> DeviceArray`, which
/// launch a generated kernel with the block size picked for it.
#[proc_macro_attribute]
pub fn gpu_elementwise(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_elementwise(attr.into(), item.into()).into()
}

/// Reduce arrays with an associative, commutative binary function: Numba's
/// `@cuda.reduce`, CuPy's `ReductionKernel`. `#[gpu_reduce] fn add<T: Num>(a: T, b: T) -> T`
/// stays a Rust function and a device function; its module gains `reduce(&a, init)` and
/// `reduce_into(&a, init, &mut out)`. With `with = add` on a function of values
/// (`fn square(x: f32) -> f32`), its module reduces the function's values over arrays
/// with `add` (a map-reduce).
#[proc_macro_attribute]
pub fn gpu_reduce(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_reduce(attr.into(), item.into()).into()
}
