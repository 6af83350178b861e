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

/// Make a plain-data struct usable in kernels: as the element of arrays, a scalar
/// parameter, a local, a device function's parameter or result. The struct gets
/// `#[repr(C)]`; its fields are dtypes, other `#[gpu_struct]` structs, or fixed-size
/// arrays of them, with no padding between them. The runtime declares it in C and asserts
/// that C's size, alignment and field offsets are Rust's.
#[proc_macro_attribute]
pub fn gpu_struct(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_struct(attr.into(), item.into()).into()
}

/// Make a C-like enum usable in kernels: as the element of arrays, a scalar parameter, a
/// struct field, a local; compared with `==` and `!=`, cast to an integer with `as`,
/// matched. It derives `Clone, Copy, PartialEq`, has a variant of value 0, and is
/// represented by an integer (`#[repr(u8)]`, ..., or `i32` when none is written); in C it
/// is that integer.
#[proc_macro_attribute]
pub fn gpu_enum(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_enum(attr.into(), item.into()).into()
}

/// Declare foreign CUDA C device functions, Numba's `cuda.declare_device`: on an
/// `unsafe extern "C" { fn mul_add(a: f32, b: f32, c: f32) -> f32; }` block, with the C as
/// `file = "functions.cu"` (relative to this file) or `source = "..."`. Kernels call them
/// inside `unsafe { }`, which makes the kernel's launch `unsafe`; `#[simulator(path)]` on a
/// declaration names the Rust function the simulator runs for it.
#[proc_macro_attribute]
pub fn gpu_extern(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_extern(attr.into(), item.into()).into()
}

/// `#[gpu_global]` on a `static` one-dimensional array of numbers or `bool`: device memory
/// that kernels read and write by its name (`HIST[b] += 1`, `atomic_add(HIST, b, 1)`) and
/// the host reads and writes between launches (`HIST.read(&dev)?`, `HIST.write(&dev,
/// &v)?`), one copy per device, made from the initialiser at its first use there.
/// `#[gpu_global(constant)]` puts it in constant memory (at most 64 KB), read-only in
/// kernels. See `gpu_runtime::DeviceGlobal`.
#[proc_macro_attribute]
pub fn gpu_global(
    attr: proc_macro::TokenStream,
    item: proc_macro::TokenStream,
) -> proc_macro::TokenStream {
    gpu_translate::expand_global(attr.into(), item.into()).into()
}

/// Not a public API: `#[gpu_kernel]` and `#[gpu_device]` again, once the fields of the
/// structs they use have been fetched from each struct's definition.
#[doc(hidden)]
#[proc_macro]
pub fn __gpu_with_structs(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    gpu_translate::expand_with_structs(input.into()).into()
}
