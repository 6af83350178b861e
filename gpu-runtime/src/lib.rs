//! Numba-style GPU kernels for Rust.
//!
//! Put `#[gpu_kernel]` on a function written in a small subset of Rust; the attribute
//! translates its body to CUDA C at compile time and gives the function's name a typed
//! launcher. The first launch of each dtype signature on a device compiles the CUDA C with
//! NVRTC for that device's exact architecture; later launches go straight to the driver.
//! Where there is no GPU, the same kernels run on a CPU simulator behind the same
//! [`Device`] API. Indices are checked, on the GPU too: safe code cannot reach memory an
//! array does not own. The [`guide`] covers the whole library.
//!
//! ```
//! use gpu_runtime::prelude::*;
//!
//! #[gpu_kernel]
//! fn vec_add<T: Float>(a: &[T], b: &[T], c: &mut [T]) {
//!     let i = grid_1d();
//!     if i < a.len() {
//!         c[i] = a[i] + b[i];
//!     }
//! }
//!
//! # fn main() -> Result<(), GpuError> {
//! let dev = Device::simulator(); // or Device::gpu_or_simulator()? for the GPU where there is one
//! let a = dev.to_device(&[1.0f32, 2.0, 3.0])?;
//! let b = dev.to_device(&[10.0f32, 20.0, 30.0])?;
//! let mut c = dev.zeros::<f32>(3)?;
//! launch!(vec_add[1, 32](&a, &b, &mut c))?;
//! assert_eq!(c.to_host()?, vec![11.0, 22.0, 33.0]);
//! # Ok(())
//! # }
//! ```
//!
//! The crate is layered, each layer importing only from those below it (the repository's
//! ARCHITECTURE.md draws them): errors and environment variables; the data a launch is
//! described by (`dtype`, `def/` the kernel definitions, `launch/`); `backend/`, the CUDA
//! driver, NVRTC, NCCL and NVTX, and the simulator; `compile/`, which turns definitions
//! into machine code, and `lang/`, the kernel language as the simulator runs it; `host/`,
//! the API programs call (devices, arrays, streams, launches, collectives, raw CUDA C);
//! and on top the support of generated code and this crate root.
#![deny(missing_docs)]

mod backend;
mod compile;
pub mod def;
mod dtype;
pub mod env;
mod error;
mod host;
mod keep_alive;
pub mod lang;
mod launch;
mod private;
pub mod random;

/// Collectives between devices and processes: [`Communicator`](collective::Communicator),
/// [`group`](collective::group), through NCCL on CUDA devices and a simulated communicator
/// on the simulator. See the README's "Several GPUs and machines".
pub mod collective {
    pub use crate::host::collective::{
        group, nccl_version, Collectives, CommOptions, Communicator, OnStream, ReduceOp, Reducible,
    };
}

pub use backend::cuda::nvrtc::nvrtc_version;
pub use backend::cuda::FunctionAttributes;
pub use compile::cache;
pub use def::module_array::DeviceGlobal;
pub use dtype::{Dtype, Element, Float, Int, Num};
pub use error::{GpuError, Result};
pub use gpu_macros::{
    gpu_device, gpu_elementwise, gpu_enum, gpu_extern, gpu_global, gpu_kernel, gpu_reduce,
    gpu_struct,
};
pub use half::{bf16, f16};
pub use host::args::{SliceArg, SliceArgMut};
pub use host::array::{DeviceArray, DeviceArray2, DeviceArray3};
pub use host::device::{Backend, Device, MemoryInfo};
pub use host::event::Event;
pub use host::graph::Graph;
pub use host::interop::NotHandedOver;
pub use host::launch_config::{Extent, IntoExtents, LaunchConfig};
pub use host::pinned::PinnedBuffer;
pub use host::profiling;
pub use host::raw;
pub use host::stream::Stream;
pub use host::timing::Timing;
pub use host::view::{DeviceSlice, DeviceSliceMut};
pub use lang::mma::{round_tf32, MmaOperand};
pub use launch::dims::Dim3;
/// Complex numbers for kernels: num-complex's types (`Complex32` is `Complex<f32>`),
/// re-exported so a kernel's and its caller's are the same crate's.
#[cfg(feature = "complex")]
pub use num_complex::{self, Complex, Complex32, Complex64};

/// Everything a kernel file needs: `use gpu_runtime::prelude::*;`: the kernel language
/// ([`lang`] and the random-number functions), the attributes and `launch!`, and the host
/// types a program names most. It glob-imports beside `ndarray::prelude::*` without a
/// clash.
pub mod prelude {
    pub use crate::collective::Collectives;
    pub use crate::lang::*;
    pub use crate::random::{
        philox4x32_10, philox_normal_f32, philox_normal_f64, philox_u32, philox_u64,
        philox_uniform_f32, philox_uniform_f64, xoroshiro128p_next, xoroshiro128p_normal_f32,
        xoroshiro128p_normal_f64, xoroshiro128p_uniform_f32, xoroshiro128p_uniform_f64,
    };
    pub use crate::{
        gpu_device, gpu_elementwise, gpu_enum, gpu_extern, gpu_global, gpu_kernel, gpu_reduce,
        gpu_struct, launch, Device, DeviceArray, DeviceArray2, DeviceArray3, Dim3, Float, GpuError,
        Int, LaunchConfig, Num, Stream, Timing,
    };
    pub use half::{bf16, f16};
    #[cfg(feature = "complex")]
    pub use num_complex::{Complex, Complex32, Complex64};
}

/// Launch a kernel, Numba-style: `launch!(kernel[grid, block](args...))`.
///
/// `grid` and `block` are integers or 2-/3-tuples of integers. Two more forms take a
/// stream, and a stream plus a count of dynamic shared-memory bytes:
/// `launch!(kernel[grid, block, &stream](args...))`,
/// `launch!(kernel[grid, block, &stream, bytes](args...))`. With
/// `launch!(kernel.forall(n)(args...))` (or `.forall(n, &stream)`) the runtime picks the
/// block size for the compiled kernel and launches at least `n` threads, as Numba's
/// `kernel.forall(n)`. With `launch!(kernel.cooperative(block)(args...))` (or
/// `.cooperative(block, &stream)`, `.cooperative(block, &stream, bytes)`) the grid is as
/// many blocks of `block` threads as the device holds at once for the compiled kernel,
/// the largest a kernel that calls `sync_grid()` may have. `kernel` is the path of a `#[gpu_kernel]` (`kernels::add`); a
/// [`RawKernel`](raw::RawKernel) is launched with its own method, inside `unsafe`:
/// `unsafe { raw.launch(LaunchConfig::new(grid, block), args...) }`. A kernel with const
/// parameters takes their values as the path's generic arguments, dtypes inferred where
/// written `_`: `launch!(tiled::<_, 64>[grid, block](args...))`,
/// `launch!(window::<3>.forall(n)(args...))`; a negative value in braces, `{ -2 }`.
///
/// The launch is a call of the kernel's launcher, `kernel(config, args...)`, so the
/// arguments are type-checked against the kernel's parameters (`&DeviceArray<T>` for
/// `&[T]`, `&mut DeviceArray<T>` for `&mut [T]`, values for scalars) and the dtype
/// signature is inferred from them. A kernel declared `#[gpu_kernel(unchecked)]` has an
/// `unsafe` launcher, so its launch must be written inside `unsafe { }`. Returns
/// `Result<(), GpuError>`.
#[macro_export]
macro_rules! launch {
    ($($kernel:ident)::+ $(::<$($g:tt),+ $(,)?>)? . forall ($n:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+ $(::<$($g),+>)? ($crate::LaunchConfig::forall($n), $($arg),*)
    };
    ($($kernel:ident)::+ $(::<$($g:tt),+ $(,)?>)? . forall ($n:expr, $stream:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+ $(::<$($g),+>)? ($crate::LaunchConfig::forall($n).on_stream($stream), $($arg),*)
    };
    ($($kernel:ident)::+ $(::<$($g:tt),+ $(,)?>)? . cooperative ($block:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+ $(::<$($g),+>)? ($crate::LaunchConfig::cooperative($block), $($arg),*)
    };
    ($($kernel:ident)::+ $(::<$($g:tt),+ $(,)?>)? . cooperative ($block:expr, $stream:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+ $(::<$($g),+>)? ($crate::LaunchConfig::cooperative($block).on_stream($stream), $($arg),*)
    };
    ($($kernel:ident)::+ $(::<$($g:tt),+ $(,)?>)? . cooperative ($block:expr, $stream:expr, $shared:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+ $(::<$($g),+>)? (
            $crate::LaunchConfig::cooperative($block).on_stream($stream).with_shared_mem($shared),
            $($arg),*
        )
    };
    ($kernel:path [$grid:expr, $block:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $kernel($crate::LaunchConfig::new($grid, $block), $($arg),*)
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $kernel(
            $crate::LaunchConfig::new($grid, $block).on_stream($stream),
            $($arg),*
        )
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr, $shared:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $kernel(
            $crate::LaunchConfig::new($grid, $block)
                .on_stream($stream)
                .with_shared_mem($shared),
            $($arg),*
        )
    };
    ($kernel:path [$($config:tt)*] $($rest:tt)*) => {
        ::core::compile_error!(
            "launch! takes `kernel[grid, block](args)`, optionally with `, &stream` and then \
             `, shared_bytes` after the block size, `kernel.forall(n)(args)`, or \
             `kernel.cooperative(block)(args)` (then `, &stream` and `, shared_bytes`)"
        )
    };
}

/// The `cudarc` this crate is built on, for handing buffers and handles between the two
/// (see [`DeviceArray::from_cuda_slice`]).
pub use cudarc;

/// What a kernel's array parameters and shared arrays are in the body's Rust: the types
/// rustc type-checks a kernel body against and the simulator runs it with (a kernel's
/// `a: &[f32]` is a `SimSlice` there; `a[i]` reads it with `get`). Not a public API: rustc's
/// messages about a kernel body may name these types, and nothing else should.
#[doc(hidden)]
pub mod simulator {
    pub use crate::backend::sim::views::ElementMut;
    pub use crate::backend::sim::{
        DeviceFnArray, DeviceFnArray2, DeviceFnArray2Mut, DeviceFnArray3, DeviceFnArray3Mut,
        DeviceFnArrayMut, SimArray2, SimArray2Mut, SimArray3, SimArray3Mut, SimSlice, SimSliceMut,
    };
    pub use crate::lang::shared::{DynamicSharedArray, SharedArray, SharedArray2};
}

/// Support for the code `#[gpu_kernel]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::private::*;
}

/// The guide: the kernel language (what each construct becomes in CUDA C), launching,
/// compile options and the cache, devices and the simulator, checked indices and device
/// faults, errors, environment variables, raw CUDA C, streams, interop and profiling,
/// and a table for readers coming from Numba, CuPy or PyCUDA. It is the repository's
/// README; its examples run as doctests.
#[doc = include_str!("../README.md")]
pub mod guide {}
