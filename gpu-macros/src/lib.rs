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
