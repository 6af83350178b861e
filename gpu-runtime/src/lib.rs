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
//! let dev = Device::simulator(); // or Device::default()? for the GPU where there is one
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
mod def;
mod dtype;
mod env;
mod error;
mod host;
mod keep_alive;
mod lang;
mod launch;
mod private;
pub mod random;

/// Collectives between devices and processes: [`Communicator`], [`group`](collective::group), through NCCL on
/// CUDA devices and a simulated communicator on the simulator. See the README's "Several
/// GPUs and machines".
pub mod collective {
    pub use crate::env::COMM_TIMEOUT_ENV;
    pub use crate::host::collective::{
        group, nccl_version, Collectives, CommOptions, Communicator, OnStream, ReduceOp, Reducible,
    };
}

pub use backend::cuda::nvrtc::nvrtc_version;
pub use backend::cuda::FunctionAttributes;
pub use compile::cache;
pub use compile::prelude::{full_prelude, prelude_for};
pub use def::device_fn::DeviceFnDef;
pub use def::kernel::{KernelDef, KernelHandle};
pub use dtype::{Dtype, Element, Float, Int, Num};
pub use env::{
    BACKEND_ENV, DUMP_ENV, NCCL_ENV, NVRTC_ENV, PRINTF_BUFFER_ENV, SIM_THREADS_ENV,
    SIM_TIMEOUT_ENV, SYNC_ENV,
};
pub use error::{GpuError, Result};
pub use gpu_contract::{
    Bound, DtypeKind, ElemKind, GenericParam, KernelOptions, ParamDef, ParamKind, StructLayout,
};
pub use gpu_macros::{gpu_device, gpu_elementwise, gpu_enum, gpu_kernel, gpu_reduce, gpu_struct};
pub use half::{bf16, f16};
pub use host::args::{SliceArg, SliceArgMut};
pub use host::array::{Array2, Array3, DeviceArray, DeviceArray2, DeviceArray3};
pub use host::collective::{Communicator, ReduceOp};
pub use host::device::{Backend, Device, MemoryInfo};
pub use host::event::Event;
pub use host::graph::Graph;
pub use host::interop::NotHandedOver;
#[allow(deprecated)]
pub use host::interop::NotOnGpu;
pub use host::launch_config::{Extent, Extents, IntoExtents, LaunchConfig, Shape};
pub use host::pinned::PinnedBuffer;
pub use host::profiling;
pub use host::raw;
pub use host::stream::Stream;
pub use host::timing::Timing;
pub use host::view::{ArrayView, ArrayViewMut};
pub use lang::atomic::{
    atomic_add, atomic_and, atomic_cas, atomic_dec, atomic_exch, atomic_inc, atomic_max,
    atomic_min, atomic_or, atomic_sub, atomic_xor,
};
pub use lang::barrier::{
    sync_grid, sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, threadfence,
    threadfence_block, threadfence_system,
};
pub use lang::geometry::{
    block_dim, block_idx, grid_1d, grid_2d, grid_3d, grid_dim, gridsize_1d, gridsize_2d,
    gridsize_3d, thread_idx,
};
pub use lang::shared::{self, dynamic_shared_array, shared_array, shared_array_2d};
pub use lang::vector::{load4, store4, VectorSource, VectorTarget};
pub use lang::warp::{
    active_mask, all_sync, any_sync, ballot_sync, eq_sync, lane_id, shfl_down_sync, shfl_sync,
    shfl_up_sync, shfl_xor_sync, sync_warp, warp_size, WARP_SIZE,
};
pub use launch::dims::Dim3;
/// Complex numbers for kernels: num-complex's types (`Complex32` is `Complex<f32>`),
/// re-exported so a kernel's and its caller's are the same crate's.
#[cfg(feature = "complex")]
pub use num_complex::{self, Complex, Complex32, Complex64};
pub use raw::{Ptr, PtrMut, RawKernel, RawModule};

/// Everything a kernel file needs: `use gpu_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::collective::Collectives;
    pub use crate::random::{
        philox4x32_10, philox_normal_f32, philox_normal_f64, philox_u32, philox_u64,
        philox_uniform_f32, philox_uniform_f64, xoroshiro128p_next, xoroshiro128p_normal_f32,
        xoroshiro128p_normal_f64, xoroshiro128p_uniform_f32, xoroshiro128p_uniform_f64,
    };
    pub use crate::{
        active_mask, all_sync, any_sync, atomic_add, atomic_and, atomic_cas, atomic_dec,
        atomic_exch, atomic_inc, atomic_max, atomic_min, atomic_or, atomic_sub, atomic_xor,
        ballot_sync, block_dim, block_idx, dynamic_shared_array, eq_sync, gpu_device,
        gpu_elementwise, gpu_enum, gpu_kernel, gpu_reduce, gpu_struct, grid_1d, grid_2d, grid_3d,
        grid_dim, gridsize_1d, gridsize_2d, gridsize_3d, lane_id, launch, load4, shared_array,
        shared_array_2d, shfl_down_sync, shfl_sync, shfl_up_sync, shfl_xor_sync, store4, sync_grid,
        sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, sync_warp, thread_idx,
        threadfence, threadfence_block, threadfence_system, warp_size, Array2, Array3, Device,
        DeviceArray, DeviceArray2, DeviceArray3, Dim3, Float, GpuError, Int, KernelHandle,
        LaunchConfig, Num, Stream, Timing, WARP_SIZE,
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
/// `kernel.forall(n)`. `kernel` is the path of a `#[gpu_kernel]` (`kernels::add`); a
/// [`RawKernel`] is launched with its own method, inside `unsafe`:
/// `unsafe { raw.launch(LaunchConfig::new(grid, block), args...) }`.
///
/// The launch is a call of the kernel's launcher, `kernel(config, args...)`, so the
/// arguments are type-checked against the kernel's parameters (`&DeviceArray<T>` for
/// `&[T]`, `&mut DeviceArray<T>` for `&mut [T]`, values for scalars) and the dtype
/// signature is inferred from them. A kernel declared `#[gpu_kernel(unchecked)]` has an
/// `unsafe` launcher, so its launch must be written inside `unsafe { }`. Returns
/// `Result<(), GpuError>`.
#[macro_export]
macro_rules! launch {
    ($($kernel:ident)::+ . forall ($n:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+($crate::LaunchConfig::forall($n), $($arg),*)
    };
    ($($kernel:ident)::+ . forall ($n:expr, $stream:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $($kernel)::+($crate::LaunchConfig::forall($n).on_stream($stream), $($arg),*)
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
             `, shared_bytes` after the block size, or `kernel.forall(n)(args)`"
        )
    };
}

/// The `cudarc` this crate is built on, for handing buffers and handles between the two
/// (see [`DeviceArray::from_cuda_slice`]).
pub use cudarc;

/// What a kernel's array parameters and shared arrays are in the body's Rust: the types
/// rustc type-checks a kernel body against and the simulator runs it with. A kernel's
/// `a: &[f32]` is a [`SimSlice`](simulator::SimSlice) there; `a[i]` reads it with
/// [`get`](simulator::SimSlice::get).
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
