//! The end of every launch: queueing a loaded kernel's entry on a stream with its packed
//! arguments (`cuLaunchKernel`, or `cuLaunchCooperativeKernel` for a kernel that calls
//! `sync_grid()`), as the host API validated it; the dynamic shared memory an entry is
//! allowed; and the block size of a `forall` launch.

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use cudarc::driver::sys::CUfunction_attribute;

use super::fault;
use super::handles::OwnedEvent;
use super::modules::{Entry, LoadedKernel};
use super::nvtx;
use super::CudaDevice;
use crate::def::kernel::KernelDef;
use crate::dtype::DtypeKind;
use crate::error::{GpuError, Result};
use crate::launch::dims::ValidLaunch;

/// The stack a launch that grows the driver's local-memory reservation runs with (see
/// `enqueue_growing_local`).
const LAUNCH_GROWTH_STACK_BYTES: usize = 1024 * 1024;

/// A stream's raw handle, compared and waited on but never owned.
pub(super) struct StreamHandle(pub(super) cudarc::driver::sys::CUstream);

// SAFETY: a CUstream handle may be used from any thread; this one is only compared.
unsafe impl Send for StreamHandle {}

/// `cuLaunchKernel` of `entry` on `stream` with `args`, as validated.
///
/// # Safety
///
/// `args` must hold one valid pointer per C parameter of the entry, to a value of that
/// parameter's type, and the arrays behind them must stay allocated until the kernel has
/// run (the launch orders their frees after it); `valid` must be within the entry's limits.
#[inline]
unsafe fn launch_plain(
    entry: &Entry,
    valid: &ValidLaunch,
    stream: cudarc::driver::sys::CUstream,
    args: &mut [*mut c_void],
) -> std::result::Result<(), cudarc::driver::DriverError> {
    // SAFETY: the caller's contract; the function handle is live (its module is held by
    // `entry`).
    unsafe {
        cudarc::driver::result::launch_kernel(
            entry.function.cu_function(),
            valid.grid.tuple(),
            valid.block.tuple(),
            valid.shared_mem_bytes,
            stream,
            args,
        )
    }
}

impl CudaDevice {
    /// Queue `entry` of `kernel` on `stream` with `args`, as validated: what every launch
    /// ends with.
    ///
    /// # Safety
    ///
    /// `args` must hold one valid pointer per C parameter of the kernel's entry, to a value
    /// of that parameter's type, and the arrays behind them must stay allocated until the
    /// kernel has run (the launch orders their frees after it); `entry` must be one of
    /// `kernel`'s entries, the one the kernel's fast-path conditions choose for these
    /// values, and `valid` within its limits.
    #[inline]
    pub(crate) unsafe fn enqueue(
        &self,
        kernel: &LoadedKernel,
        entry: &Entry,
        valid: &ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        if entry.attributes.local_bytes_per_thread > self.local_launched.load(Ordering::Relaxed) {
            // SAFETY: the caller's contract, passed on.
            return unsafe {
                self.enqueue_growing_local(kernel, entry, valid, stream, args, dtypes)
            };
        }
        // SAFETY: the caller's contract.
        unsafe { self.enqueue_here(kernel, entry, valid, stream, args, dtypes) }
    }

    /// [`CudaDevice::enqueue`] of a kernel that needs more local memory per thread than
    /// any launched before: the driver grows its reservation inside the launch, which takes
    /// more stack than a small thread has (a 64 KB thread overflowed in it on an H100), so
    /// the launch runs on a thread with room when the caller lacks it.
    ///
    /// # Safety
    ///
    /// As for [`CudaDevice::enqueue`].
    #[cold]
    unsafe fn enqueue_growing_local(
        &self,
        kernel: &LoadedKernel,
        entry: &Entry,
        valid: &ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        /// The launch's raw handles, taken to the other thread, which the caller waits for.
        struct Raw(cudarc::driver::sys::CUstream, *mut [*mut c_void]);
        // SAFETY: the stream handle and the argument pointers may be used from any
        // thread; `with_room` returns only after the thread using them has ended, while
        // they are still the caller's.
        unsafe impl Send for Raw {}
        let raw = Raw(stream, args as *mut [*mut c_void]);
        let launch = move || {
            let raw = raw;
            // SAFETY: `raw.1` is the caller's `args`, borrowed for this call; the caller's
            // contract holds for the launch (the context is made current in it).
            unsafe { self.enqueue_here(kernel, entry, valid, raw.0, &mut *raw.1, dtypes) }
        };
        let r = crate::backend::stack_room::with_room(LAUNCH_GROWTH_STACK_BYTES, launch)
            .unwrap_or_else(|e| {
                Err(GpuError::InvalidArgument(format!(
                    "launching `{}` needs a thread with more stack than this one has, and none \
                     could be started: {e}",
                    kernel.def.name()
                )))
            });
        // A launch a capture records grows nothing: the next launch that runs must still
        // take this path.
        if r.is_ok() && !self.is_capturing(stream, "a launch")? {
            self.local_launched
                .fetch_max(entry.attributes.local_bytes_per_thread, Ordering::Relaxed);
        }
        r
    }

    /// [`CudaDevice::enqueue`] on this thread.
    ///
    /// # Safety
    ///
    /// As for [`CudaDevice::enqueue`].
    #[inline]
    unsafe fn enqueue_here(
        &self,
        kernel: &LoadedKernel,
        entry: &Entry,
        valid: &ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        let def = kernel.def;
        let launch_err = |source| self.launch_error(def, dtypes, entry, source);
        self.make_current().map_err(launch_err)?;
        self.note_launch(kernel);
        let _range = nvtx::launch_range(|| kernel.signature.clone());
        if kernel.ordered {
            // SAFETY: the caller's contract.
            unsafe { self.launch_ordered(kernel, entry, valid, stream, args, dtypes)? };
            return self.finish(stream);
        }
        // SAFETY: the caller's contract.
        unsafe { launch_plain(entry, valid, stream, args) }.map_err(launch_err)?;
        self.finish(stream)
    }

    /// A launch ordered after others: of a cooperative kernel (one at a time), or of one
    /// that names device globals (after the last launch that named each).
    ///
    /// # Safety
    ///
    /// As for [`CudaDevice::enqueue`].
    #[cold]
    unsafe fn launch_ordered(
        &self,
        kernel: &LoadedKernel,
        entry: &Entry,
        valid: &ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        let def = kernel.def;
        let mut queue = || {
            if def.cooperative() {
                // SAFETY: the caller's contract.
                return unsafe {
                    self.launch_cooperative(kernel, entry, valid, stream, args, dtypes)
                };
            }
            // SAFETY: the caller's contract.
            unsafe { launch_plain(entry, valid, stream, args) }
                .map_err(|source| self.launch_error(def, dtypes, entry, source))
        };
        if kernel.globals.is_empty() {
            queue()
        } else {
            self.launch_on_globals(def.name(), &kernel.globals, stream, queue)
        }
    }

    /// Let `kernel` take `bytes` of dynamic shared memory per block: more than the default
    /// 48 KB needs `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` set first.
    #[cold]
    pub(crate) fn allow_dynamic_shared(&self, entry: &Entry, bytes: u32) -> Result<()> {
        // SAFETY: the function handle is live (its module is held by `entry`).
        unsafe {
            cudarc::driver::result::function::set_function_attribute(
                entry.function.cu_function(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        }
        .map_err(self.driver_error("allowing more dynamic shared memory"))?;
        entry
            .dynamic_shared_allowed
            .fetch_max(bytes, Ordering::Relaxed);
        Ok(())
    }

    /// A launch the driver refused: a fault of the context, a kernel whose local memory
    /// per thread is over a GPU thread's (said in words: the driver says only "invalid
    /// argument"), or another launch error.
    #[cold]
    fn launch_error(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        entry: &Entry,
        source: cudarc::driver::DriverError,
    ) -> GpuError {
        use cudarc::driver::sys::CUresult;
        if fault::is_sticky(source.0) {
            return self.fault(source);
        }
        let local = u64::from(entry.attributes.local_bytes_per_thread);
        let refused = matches!(
            source.0,
            CUresult::CUDA_ERROR_INVALID_VALUE | CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
        );
        if source.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY && local > 0 {
            return GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: format!(
                    "compiled for {}, it needs {local} bytes of local memory per thread (the \
                     driver's figure), which the driver reserves for every thread {} can hold \
                     at once ({} multiprocessors), and that much device memory is not free: \
                     use less local memory per thread (smaller local arrays; {source})",
                    def.signature(dtypes),
                    self.limits.device_name,
                    self.limits.multiprocessors,
                ),
            };
        }
        if refused && local > crate::def::stack::LOCAL_BYTES_PER_THREAD {
            return GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: format!(
                    "compiled for {}, it needs {local} bytes of local memory per thread (the \
                     driver's figure: local arrays, call frames and register spills), more \
                     than the {} (512 KB) a GPU thread may have; the driver refused the \
                     launch ({source})",
                    def.signature(dtypes),
                    crate::def::stack::LOCAL_BYTES_PER_THREAD
                ),
            };
        }
        GpuError::Launch {
            kernel: def.name(),
            signature: def.signature(dtypes),
            source,
        }
    }

    /// A launch whose blocks must all be resident at once (the kernel calls `sync_grid()`):
    /// refused when the grid is larger than the device holds, else `cuLaunchCooperativeKernel`.
    ///
    /// # Safety
    ///
    /// As for [`CudaDevice::enqueue`].
    #[cold]
    unsafe fn launch_cooperative(
        &self,
        kernel: &LoadedKernel,
        entry: &Entry,
        valid: &ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        let def = kernel.def;
        let f = entry.function.cu_function();
        let threads = valid.block.volume() as u32;
        let per_sm = blocks_per_multiprocessor(f, threads, valid.shared_mem_bytes)?;
        let fit = per_sm * u64::from(self.limits.multiprocessors);
        if valid.grid.volume() > fit {
            return Err(GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: format!(
                    "the kernel calls sync_grid(), so every block must be resident at once, but \
                     only {fit} blocks of {threads} threads fit on {} ({per_sm} per \
                     multiprocessor x {}); this grid has {}",
                    self.limits.device_name,
                    self.limits.multiprocessors,
                    valid.grid.volume()
                ),
            });
        }
        let (g, b) = (valid.grid, valid.block);
        // One launch of this kernel at a time on the GPU: wait for the previous one if it
        // ran on another stream (on the same stream, stream order already serialises).
        let mut last = kernel
            .cooperative_last
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((last_stream, event)) = last.as_ref() {
            if last_stream.0 != stream {
                // SAFETY: both handles are live.
                unsafe {
                    cudarc::driver::result::stream::wait_event(
                        stream,
                        event.raw(),
                        cudarc::driver::sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                    )
                }
                .map_err(self.driver_error("ordering cooperative launches"))?;
            }
        }
        // SAFETY: as for `launch_kernel` in `enqueue` (the caller's contract).
        unsafe {
            cudarc::driver::sys::cuLaunchCooperativeKernel(
                f,
                g.x,
                g.y,
                g.z,
                b.x,
                b.y,
                b.z,
                valid.shared_mem_bytes,
                stream,
                args.as_mut_ptr(),
            )
        }
        .result()
        .map_err(|source| self.launch_error(def, dtypes, entry, source))?;
        let event = OwnedEvent::record(&self.ctx, stream)
            .map_err(self.driver_error("ordering cooperative launches"))?;
        *last = Some((StreamHandle(stream), event));
        Ok(())
    }
}

impl Entry {
    /// The block size of a `forall` launch, found at the first one.
    #[inline]
    pub(crate) fn forall_block(&self) -> Result<u32> {
        match self.forall_block.load(Ordering::Relaxed) {
            0 => {
                let b = forall_block_size(
                    self.function.cu_function(),
                    self.attributes.max_threads_per_block,
                )?;
                self.forall_block.store(b, Ordering::Relaxed);
                Ok(b)
            }
            b => Ok(b),
        }
    }

    /// How many blocks of `threads` threads with `shared` bytes of dynamic shared memory
    /// the device holds resident at once for this entry, over its `multiprocessors`: the
    /// largest grid of a cooperative launch.
    pub(crate) fn resident_blocks(
        &self,
        threads: u32,
        shared: u32,
        multiprocessors: u32,
    ) -> Result<u64> {
        let per_sm = blocks_per_multiprocessor(self.function.cu_function(), threads, shared)?;
        Ok(per_sm * u64::from(multiprocessors))
    }
}

/// The driver's count of blocks of `threads` threads with `shared` bytes of dynamic shared
/// memory one multiprocessor holds at once for `f`.
fn blocks_per_multiprocessor(
    f: cudarc::driver::sys::CUfunction,
    threads: u32,
    shared: u32,
) -> Result<u64> {
    let mut blocks = 0i32;
    // SAFETY: `f` is a live function handle; `blocks` is valid for writes.
    unsafe {
        cudarc::driver::sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut blocks,
            f,
            threads as i32,
            shared as usize,
        )
    }
    .result()
    .map_err(GpuError::driver("occupancy query"))?;
    Ok(blocks.max(0) as u64)
}

/// The block size for `forall` launches of `f`: the smallest of 256, 512 and 1024 threads
/// (then 128, 64, 32) that reaches the best occupancy `f` can have. Occupancy alone is not
/// enough: for a streaming kernel 1024 and 128 threads per block both fill the H200, yet
/// measured 3001 and 2537 GB/s against 3495 GB/s at 256 (../shared/PERFORMANCE.md), so
/// among equals we prefer 256.
fn forall_block_size(f: cudarc::driver::sys::CUfunction, max_threads: u32) -> Result<u32> {
    let occupancy = |block: u32| -> Result<u64> {
        Ok(blocks_per_multiprocessor(f, block, 0)? * u64::from(block))
    };
    let candidates: Vec<u32> = [256, 512, 1024, 128, 64, 32]
        .into_iter()
        .filter(|&b| b <= max_threads)
        .collect();
    let mut best = (0u64, 32u32);
    for &b in &candidates {
        let o = occupancy(b)?;
        if o > best.0 {
            best = (o, b);
        }
    }
    Ok(best.1)
}
