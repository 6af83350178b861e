//! Numba-style GPU kernels for Rust.
//!
//! Put `#[gpu_kernel]` on a function written in a small subset of Rust; the attribute
//! translates its body to CUDA C at compile time and turns the function's name into a
//! kernel handle with a typed launcher. The first launch of each dtype signature on a
//! device compiles the CUDA C with NVRTC for that device's exact architecture; later
//! launches go straight to the driver. Where there is no GPU, the same kernels run on a
//! CPU simulator behind the same [`Device`] API. The [`guide`] covers the whole library.
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
#![deny(missing_docs)]

mod array;
pub mod atomic;
mod barrier;
pub mod cache;
mod compile;
mod cuda;
mod cuda_prelude;
mod device;
mod dtype;
mod error;
mod event;
mod geometry;
mod interop;
mod kernel;
mod launch_config;
mod pinned;
pub mod profiling;
pub mod raw;
pub mod shared;
mod sim;
mod stream;
mod timing;
mod vector;
mod warp;

pub use array::{Array2, Array3, DeviceArray, DeviceArray2, DeviceArray3};
pub use atomic::{
    atomic_add, atomic_and, atomic_cas, atomic_dec, atomic_exch, atomic_inc, atomic_max,
    atomic_min, atomic_or, atomic_sub, atomic_xor,
};
pub use barrier::{
    sync_grid, sync_threads, sync_threads_and, sync_threads_count, sync_threads_or, threadfence,
    threadfence_block, threadfence_system,
};
pub use compile::DUMP_ENV;
pub use cuda::libraries::NVRTC_ENV;
pub use cuda::nvrtc::nvrtc_version;
pub use cuda::FunctionAttributes;
pub use cuda_prelude::{full_prelude, prelude_for};
pub use device::{Backend, Device, BACKEND_ENV};
pub use dtype::{Bound, Dtype, DtypeKind, Float, Int, Num};
pub use error::{GpuError, Result};
pub use event::Event;
pub use geometry::{
    block_dim, block_idx, grid_1d, grid_2d, grid_3d, grid_dim, gridsize_1d, gridsize_2d,
    gridsize_3d, thread_idx, Dim3,
};
pub use gpu_macros::{gpu_device, gpu_elementwise, gpu_kernel};
pub use half::{bf16, f16};
pub use kernel::{
    DeviceFnDef, GenericParam, KernelDef, KernelOptions, ParamDef, ParamKind, BOUNDS_CHECK_ENV,
};
pub use launch_config::{Extent, Extents, IntoExtents, LaunchConfig, Shape};
pub use pinned::PinnedBuffer;
pub use raw::{Ptr, PtrMut, RawKernel, RawModule};
pub use shared::{dynamic_shared_array, shared_array, shared_array_2d};
pub use stream::Stream;
pub use timing::Timing;
pub use vector::{load4, store4, VectorSource};
pub use warp::{
    active_mask, all_sync, any_sync, ballot_sync, eq_sync, lane_id, shfl_down_sync, shfl_sync,
    shfl_up_sync, shfl_xor_sync, sync_warp, warp_size, WARP_SIZE,
};

/// Everything a kernel file needs: `use gpu_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        active_mask, all_sync, any_sync, atomic_add, atomic_and, atomic_cas, atomic_dec,
        atomic_exch, atomic_inc, atomic_max, atomic_min, atomic_or, atomic_sub, atomic_xor,
        ballot_sync, block_dim, block_idx, dynamic_shared_array, eq_sync, gpu_device,
        gpu_elementwise, gpu_kernel, grid_1d, grid_2d, grid_3d, grid_dim, gridsize_1d, gridsize_2d,
        gridsize_3d, lane_id, launch, load4, shared_array, shared_array_2d, shfl_down_sync,
        shfl_sync, shfl_up_sync, shfl_xor_sync, store4, sync_grid, sync_threads, sync_threads_and,
        sync_threads_count, sync_threads_or, sync_warp, thread_idx, threadfence, threadfence_block,
        threadfence_system, warp_size, Array2, Array3, Device, DeviceArray, DeviceArray2,
        DeviceArray3, Dim3, Float, GpuError, Int, LaunchConfig, Num, Stream, Timing, WARP_SIZE,
    };
    pub use half::{bf16, f16};
}

/// Launch a kernel, Numba-style: `launch!(kernel[grid, block](args...))`.
///
/// `grid` and `block` are integers or 2-/3-tuples of integers. Two more forms take a
/// stream, and a stream plus a count of dynamic shared-memory bytes:
/// `launch!(kernel[grid, block, &stream](args...))`,
/// `launch!(kernel[grid, block, &stream, bytes](args...))`. With
/// `launch!(kernel.forall(n)(args...))` (or `.forall(n, &stream)`) the runtime picks the
/// block size for the compiled kernel and launches at least `n` threads, as Numba's
/// `kernel.forall(n)`.
/// The arguments are type-checked against the kernel's parameters (`&DeviceArray<T>` for
/// `&[T]`, `&mut DeviceArray<T>` for `&mut [T]`, values for scalars), and the dtype
/// signature is inferred from them. Returns `Result<(), GpuError>`.
#[macro_export]
macro_rules! launch {
    ($kernel:ident . forall ($n:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $kernel.launch($crate::LaunchConfig::forall($n), $($arg),*)
    };
    ($kernel:ident . forall ($n:expr, $stream:expr $(,)?) ($($arg:expr),* $(,)?)) => {
        $kernel.launch($crate::LaunchConfig::forall($n).on_stream($stream), $($arg),*)
    };
    ($kernel:path [$grid:expr, $block:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $kernel.launch($crate::LaunchConfig::new($grid, $block), $($arg),*)
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $kernel.launch(
            $crate::LaunchConfig::new($grid, $block).on_stream($stream),
            $($arg),*
        )
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr, $shared:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        $kernel.launch(
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

/// Support for the code `#[gpu_kernel]` generates. Not a public API.
#[doc(hidden)]
pub mod __private {
    /// Whether NVRTC accepts `source` (a complete translation unit) for `arch`'s virtual
    /// architecture: the macro's own tests check that what it accepts compiles.
    pub fn nvrtc_accepts(source: &str, arch: &str) -> std::result::Result<(), String> {
        let virtual_arch = arch.replacen("sm_", "compute_", 1);
        crate::cuda::nvrtc::compile_program(
            source,
            "check.cu",
            &virtual_arch,
            &[],
            crate::cuda::nvrtc::Output::Ptx,
        )
        .map(drop)
        .map_err(|e| match e {
            crate::cuda::nvrtc::CompileFailure::Environment(e) => format!("no NVRTC: {e}"),
            crate::cuda::nvrtc::CompileFailure::Rejected { log } => log,
        })
    }

    use std::ffi::c_void;

    pub use crate::dtype::{Bound, Dtype, DtypeKind, DTYPE_SLOTS};
    pub use crate::kernel::{DeviceFnDef, GenericParam, KernelDef, ParamDef, ParamKind};
    pub use crate::sim::{
        ArrayArg, ArrayArgMut, SimArray2, SimArray2Mut, SimArray3, SimArray3Mut, SimSlice,
        SimSliceMut,
    };
    pub use std::sync::atomic::AtomicU32;

    use crate::array::Storage;
    use crate::device::DeviceInner;
    use crate::{Device, DeviceArray, GpuError, LaunchConfig, Result};

    /// The device a launch runs on: the stream's if one is given, else the first array's;
    /// every array must live there.
    #[inline]
    pub fn launch_device<'a>(
        def: &'static KernelDef,
        cfg: &LaunchConfig<'a>,
        arrays: &[(&'a Device, &'static str)],
    ) -> Result<&'a Device> {
        launch_device_of(def, cfg, arrays.iter().copied())
    }

    /// [`launch_device`] over any list of arrays with their parameters' names.
    #[inline]
    pub(crate) fn launch_device_of<'a>(
        def: &'static KernelDef,
        cfg: &LaunchConfig<'a>,
        arrays: impl Iterator<Item = (&'a Device, &'static str)> + Clone,
    ) -> Result<&'a Device> {
        let device = match (cfg.stream, arrays.clone().next()) {
            (Some(stream), _) => &stream.device,
            (None, Some((device, _))) => device,
            (None, None) => {
                return Err(GpuError::InvalidLaunch {
                    kernel: def.name,
                    reason: "the kernel takes no array, so the launch must name a stream to \
                             choose the device: kernel[grid, block, &stream](...)"
                        .to_owned(),
                })
            }
        };
        for (other, param) in arrays {
            if other != device {
                return Err(GpuError::DeviceMismatch {
                    kernel: def.name,
                    param,
                    expected: device.describe(),
                    found: other.describe(),
                });
            }
        }
        Ok(device)
    }

    /// Whether `device` is a GPU (else the simulator).
    #[inline]
    pub fn is_cuda(device: &Device) -> bool {
        matches!(&*device.inner, DeviceInner::Cuda(_))
    }

    /// The device address of a CUDA array.
    #[inline]
    pub fn device_ptr<T: Dtype>(array: &DeviceArray<T>) -> u64 {
        match &array.storage {
            Storage::Cuda { ptr, .. } => *ptr,
            Storage::Sim(_) => 0,
        }
    }

    /// Launch on a GPU; `args` holds a pointer to each C parameter's value.
    #[inline]
    pub fn launch_cuda(
        device: &Device,
        def: &'static KernelDef,
        signature_slot: usize,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        args: &mut [*mut c_void],
    ) -> Result<()> {
        match &*device.inner {
            DeviceInner::Cuda(cuda) => cuda.launch(def, signature_slot, dtypes, cfg, args),
            DeviceInner::Sim => unreachable!("launch_cuda is only called for CUDA devices"),
        }
    }

    /// Compile and load `def`'s precompile signatures on `device`.
    pub fn precompile(def: &'static KernelDef, device: &Device) -> Result<()> {
        match &*device.inner {
            DeviceInner::Cuda(cuda) => {
                for sig in def.precompile_signatures() {
                    cuda.attributes(def, &sig)?;
                }
                Ok(())
            }
            // The simulator runs the Rust body: nothing to compile.
            DeviceInner::Sim => Ok(()),
        }
    }

    /// The compiled function's attributes for `dtypes` on `device`.
    pub fn function_attributes(
        def: &'static KernelDef,
        device: &Device,
        dtypes: &[DtypeKind],
    ) -> Result<crate::FunctionAttributes> {
        match &*device.inner {
            DeviceInner::Cuda(cuda) => cuda.attributes(def, dtypes),
            DeviceInner::Sim => Err(GpuError::InvalidArgument(format!(
                "kernel `{}`: compiled-function attributes exist only on a CUDA device",
                def.name
            ))),
        }
    }

    /// Run on the simulator: `thread` runs the kernel body for the current thread;
    /// `concurrent` when the kernel synchronises its threads (barriers, warp functions).
    pub fn launch_sim(
        def: &'static KernelDef,
        cfg: &LaunchConfig<'_>,
        concurrent: bool,
        thread: &(dyn Fn() + Sync),
    ) -> Result<()> {
        crate::sim::run(def, cfg, concurrent, thread)
    }

    /// A simulated `&Array2<T>` parameter; `axes` name its row and column indices in
    /// errors.
    pub fn sim_array2<'a, T: Dtype>(
        array: &'a crate::DeviceArray2<T>,
        def: &'static KernelDef,
        axes: [&'static str; 2],
    ) -> SimArray2<'a, T> {
        let (rows, cols) = array.shape();
        match &array.flat().storage {
            Storage::Sim(v) => SimArray2::new(v, rows, cols, def.name, axes),
            Storage::Cuda { .. } => unreachable!("simulator launches take simulator arrays"),
        }
    }

    /// A simulated `&mut Array2<T>` parameter.
    pub fn sim_array2_mut<'a, T: Dtype>(
        array: &'a mut crate::DeviceArray2<T>,
        def: &'static KernelDef,
        axes: [&'static str; 2],
    ) -> SimArray2Mut<'a, T> {
        let (rows, cols) = array.shape();
        match &mut array.flat_mut().storage {
            Storage::Sim(v) => SimArray2Mut::new(v, rows, cols, def.name, axes),
            Storage::Cuda { .. } => unreachable!("simulator launches take simulator arrays"),
        }
    }

    /// A simulated `&Array3<T>` parameter; `axes` name its indices in errors.
    pub fn sim_array3<'a, T: Dtype>(
        array: &'a crate::DeviceArray3<T>,
        def: &'static KernelDef,
        axes: [&'static str; 3],
    ) -> SimArray3<'a, T> {
        let shape = array.shape_vec();
        match &array.flat().storage {
            Storage::Sim(v) => SimArray3::new(v, shape, def.name, axes),
            Storage::Cuda { .. } => unreachable!("simulator launches take simulator arrays"),
        }
    }

    /// A simulated `&mut Array3<T>` parameter.
    pub fn sim_array3_mut<'a, T: Dtype>(
        array: &'a mut crate::DeviceArray3<T>,
        def: &'static KernelDef,
        axes: [&'static str; 3],
    ) -> SimArray3Mut<'a, T> {
        let shape = array.shape_vec();
        match &mut array.flat_mut().storage {
            Storage::Sim(v) => SimArray3Mut::new(v, shape, def.name, axes),
            Storage::Cuda { .. } => unreachable!("simulator launches take simulator arrays"),
        }
    }

    /// A simulated `&[T]` parameter.
    pub fn sim_slice<'a, T: Dtype>(
        array: &'a DeviceArray<T>,
        def: &'static KernelDef,
        param: &'static str,
    ) -> SimSlice<'a, T> {
        match &array.storage {
            Storage::Sim(v) => SimSlice::new(v, def.name, param),
            Storage::Cuda { .. } => unreachable!("simulator launches take simulator arrays"),
        }
    }

    /// A simulated `&mut [T]` parameter.
    pub fn sim_slice_mut<'a, T: Dtype>(
        array: &'a mut DeviceArray<T>,
        def: &'static KernelDef,
        param: &'static str,
    ) -> SimSliceMut<'a, T> {
        match &mut array.storage {
            Storage::Sim(v) => SimSliceMut::new(v, def.name, param),
            Storage::Cuda { .. } => unreachable!("simulator launches take simulator arrays"),
        }
    }
}

/// The guide: the kernel language (what each construct becomes in CUDA C), launching,
/// compile options and the cache, devices and the simulator, bounds checks and device
/// faults, errors, environment variables, raw CUDA C, streams, interop and profiling,
/// and a table for readers coming from Numba, CuPy or PyCUDA. It is the repository's
/// README; its examples run as doctests.
#[doc = include_str!("../../README.md")]
pub mod guide {}
