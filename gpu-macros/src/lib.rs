//! The `#[gpu_kernel]` attribute of `gpu-runtime`, which re-exports it; depend on
//! `gpu-runtime`, not on this crate.
//!
//! The entry point is thin: everything it does is in `kernel::expand`, a function over
//! `proc_macro2` tokens that unit tests call directly.

mod attr;
mod diagnostics;
mod emit_cuda;
mod emit_rust;
mod ir;
mod kernel;
mod lower;
mod names;
mod signature;
mod types;

#[cfg(test)]
mod random_kernels;
#[cfg(test)]
mod tests;

/// Translate a restricted Rust function into a CUDA kernel with a typed launcher.
///
/// See the `gpu-runtime` crate documentation for the kernel language.
#[proc_macro_attribute]
pub fn gpu_kernel(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    kernel::expand(attr.into(), item.into()).into()
}

/// Make a function callable from kernels: a device function (Numba's
/// `@cuda.jit(device=True)`). It takes scalars, may return one, may be generic over dtypes
/// like a kernel, and may call other device functions; the kernels that call it compile
/// its translated C++ with them. It stays an ordinary Rust function too.
#[proc_macro_attribute]
pub fn gpu_device(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    kernel::expand_device(attr.into(), item.into()).into()
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
    kernel::expand_elementwise(attr.into(), item.into()).into()
}
