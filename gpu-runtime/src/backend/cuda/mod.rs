//! The CUDA backend: a context per device, lazy compilation, the launch path, and every
//! call into the driver the host API needs (`handles.rs`, `buffer.rs`), so the host API
//! reads as policy.
//!
//! `fault.rs` turns the driver's sticky errors into [`GpuError::DeviceFault`];
//! `fault_record.rs` is the device-wide record checked kernels report their first fault
//! in; `function_table.rs` finds a loaded kernel without hashing or locking;
//! `libraries.rs` finds and loads the driver, NVRTC and NVTX; `nvrtc.rs` compiles with
//! NVRTC; `nvtx.rs` makes NVTX's calls.

mod args;
pub(crate) mod buffer;
mod fault;
mod fault_record;
mod function_table;
pub(crate) mod graph;
pub(crate) mod handles;
pub(crate) mod libraries;
pub(crate) mod nccl;
pub(crate) mod nccl_comm;
pub(crate) mod nvrtc;
pub(crate) mod nvtx;
pub(crate) mod peer;

use std::ffi::c_void;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};
use cudarc::nvrtc::Ptx;
use gpu_contract::fault::{FaultKind, FaultRecord, IntOp, FAULT_CONTEXT_SYMBOL};

use crate::def::kernel::KernelDef;
use crate::dtype::DtypeKind;
use crate::error::{GpuError, Result};
use crate::host::launch_config::LaunchConfig;
use crate::launch::dims::{DeviceLimits, ValidLaunch};
use crate::private::FastPath;
use crate::Device;
use fault_record::FaultRecordMemory;
use function_table::{signature_id, FunctionTable};
use handles::OwnedEvent;

/// One CUDA device: its context, default stream, limits and compiled kernels.
pub(crate) struct CudaDevice {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub ordinal: usize,
    pub compute_capability: (u32, u32),
    pub limits: DeviceLimits,
    functions: FunctionTable<LoadedKernel>,
    /// The kernel launched last, for naming it in a fault (see `fault.rs`).
    last_launch: AtomicPtr<LoadedKernel>,
    /// The first sticky error, once the context has faulted.
    first_fault: OnceLock<String>,
    /// Where checked kernels record their first fault.
    faults: FaultRecordMemory,
    /// Whether every launch waits for its kernel and reports its fault (the debugging
    /// switch [`SYNC_ENV`](crate::env::SYNC_ENV)).
    synchronous: bool,
}

/// A kernel signature loaded on a device.
pub(crate) struct LoadedKernel {
    def: &'static KernelDef,
    /// Its display form, such as `vec_add::<f32>`.
    signature: String,
    /// The kernel's entry (without the checks its fast path proves redundant, when it
    /// has one).
    main: Entry,
    /// With a fast path: the entry with every check, for launches that fail its
    /// conditions, compiled and loaded (a module of its own) when the first such launch
    /// comes.
    checked: Option<once_cell::sync::OnceCell<Entry>>,
    /// The signature's id, which its modules' fault contexts carry.
    id: u32,
    /// What its parameters expect, for quick launches (`None`: every launch takes the
    /// general path).
    quick: Option<args::QuickArgs>,
    /// For a cooperative kernel: the stream and an event after its last launch. Launches
    /// of one cooperative kernel share its grid barrier's counters (module globals), so
    /// each waits for the one before, on whichever stream it ran.
    cooperative_last: std::sync::Mutex<Option<(StreamHandle, OwnedEvent)>>,
}

/// A quick launch that passed every test, ready to queue ([`CudaDevice::quick_launch`]).
struct QuickLaunch<'s, 'o> {
    kernel: &'s LoadedKernel,
    entry: &'s Entry,
    valid: ValidLaunch,
    stream: cudarc::driver::sys::CUstream,
    pointers: &'o mut [*mut c_void],
}

/// One `__global__` function of a loaded kernel.
struct Entry {
    function: CudaFunction,
    attributes: FunctionAttributes,
    /// The block size of a `forall` launch of this function: 0 until the first such launch
    /// asks (six occupancy queries a first launch of another shape need not make).
    forall_block: AtomicU32,
    /// The most dynamic shared memory a block can have: the device's opt-in limit less
    /// the function's static shared memory.
    max_dynamic_shared: u32,
    /// What the function's attribute allows now (48 KB less static by default).
    dynamic_shared_allowed: AtomicU32,
}

/// A stream's raw handle, compared and waited on but never owned.
struct StreamHandle(cudarc::driver::sys::CUstream);

// SAFETY: a CUstream handle may be used from any thread; this one is only compared.
unsafe impl Send for StreamHandle {}

/// What the driver reports about a compiled kernel (`cuFuncGetAttribute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionAttributes {
    /// Registers per thread.
    pub registers_per_thread: u32,
    /// Statically allocated shared memory per block, in bytes.
    pub static_shared_bytes: u32,
    /// Local memory per thread (spills, local arrays), in bytes.
    pub local_bytes_per_thread: u32,
    /// Constant memory, in bytes.
    pub const_bytes: u32,
    /// The most threads a block of this kernel can have on this device.
    pub max_threads_per_block: u32,
    /// The PTX version it was compiled from (major * 10 + minor).
    pub ptx_version: u32,
    /// The architecture of its machine code (major * 10 + minor).
    pub binary_version: u32,
}

/// Once per process, on another thread while the first context is made (a few hundred
/// milliseconds): find NVRTC's file (its identity, which a cache hit checks; NVRTC is not
/// loaded), open the disk cache and run its lookup once, so a first launch from a warm
/// cache pays for neither a dozen directory reads nor code paged in for the first time.
/// Device creation only spawns the thread.
fn prefetch_compile_inputs() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("gpu-runtime prefetch".into())
            .spawn(|| {
                let _ = libraries::nvrtc_identity();
                crate::compile::warm_up();
            });
        if let Err(e) = spawned {
            log::debug!("no prefetch thread ({e}): the first launch finds NVRTC itself");
        }
    });
}

impl CudaDevice {
    pub(crate) fn open(ordinal: usize) -> Result<CudaDevice> {
        libraries::require_driver()?;
        cudarc::driver::result::init().map_err(|e| GpuError::NoDevice {
            detail: format!("cuInit failed: {e}"),
        })?;
        let count = cudarc::driver::result::device::get_count().map_err(|e| GpuError::NoDevice {
            detail: format!("cuDeviceGetCount failed: {e}"),
        })? as usize;
        if count == 0 {
            return Err(GpuError::NoDevice {
                detail: "the driver reports 0 devices".to_owned(),
            });
        }
        if ordinal >= count {
            return Err(GpuError::BadOrdinal { ordinal, count });
        }
        prefetch_compile_inputs();
        let ctx = fresh_context(ordinal)?;
        // cudarc's event tracking stays on: it orders a buffer's uses on cudarc streams of
        // the user's (and its free after them), which keeps cudarc's safe API sound on our
        // context. It costs two events per allocation and nothing per launch of ours.
        let attr = |a: CUdevice_attribute| {
            ctx.attribute(a)
                .map(|v| v as u32)
                .map_err(GpuError::driver("device attribute query"))
        };
        use CUdevice_attribute::*;
        let compute_capability = (
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let limits = DeviceLimits {
            device_name: ctx.name().map_err(GpuError::driver("device name query"))?,
            max_grid: [
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_block: [
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_threads_per_block: attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_shared_mem_optin: attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            multiprocessors: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        };
        if std::env::var_os(crate::env::PRINTF_BUFFER_ENV).is_some() {
            let bytes = crate::env::megabytes(crate::env::PRINTF_BUFFER_ENV, 1, 4096);
            ctx.bind_to_thread()
                .and_then(|()| {
                    cudarc::driver::result::ctx::set_limit(
                        cudarc::driver::sys::CUlimit::CU_LIMIT_PRINTF_FIFO_SIZE,
                        bytes as usize,
                    )
                })
                .map_err(GpuError::driver("setting the printf buffer size"))?;
        }
        let stream = ctx.default_stream();
        let faults = FaultRecordMemory::new(&stream)?;
        Ok(CudaDevice {
            ctx,
            stream,
            ordinal,
            compute_capability,
            limits,
            functions: FunctionTable::new(),
            last_launch: AtomicPtr::new(std::ptr::null_mut()),
            first_fault: OnceLock::new(),
            faults,
            synchronous: crate::env::flag(crate::env::SYNC_ENV),
        })
    }

    /// Whether the context has faulted (see [`GpuError::DeviceFault`]).
    pub(crate) fn has_faulted(&self) -> bool {
        self.fault_seen().is_some()
    }

    /// The architecture NVRTC compiles for: this device's exact `sm_XY`.
    pub(crate) fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }

    /// Launch `def` with `args`, each checked against its parameters first.
    ///
    /// Most launches repeat a loaded signature with the arguments its launcher always
    /// passes, on an explicit grid: those take [`CudaDevice::quick_launch`], and every
    /// other launch (the first of a signature, `forall`, a capture's stream, a cooperative
    /// kernel, anything to explain) the general path below, which decides the same way.
    #[inline]
    pub(crate) fn launch_args(
        &self,
        device: &Device,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        args: &[crate::host::args::Arg<'_>],
    ) -> Result<()> {
        let mut out = args::QuickPacked::new();
        match self.quick_launch(device, def, dtypes, cfg, args, &mut out) {
            // SAFETY: `quick_launch`'s promise: the pointers are one per C parameter of
            // the kernel, in order and of its types (each argument's code equals the one
            // its parameter expects for this signature: kind, rank, writability, dtype;
            // the arrays are on this device and aligned where `load4`/`store4` need it),
            // to values in `out`; the arrays are borrowed by `args` for this call; the
            // entry is the one the fast path's conditions choose, and the launch is
            // within its limits.
            Some(q) => unsafe {
                self.enqueue(q.kernel, q.entry, &q.valid, q.stream, q.pointers, dtypes)
            },
            None => self.launch_general(device, def, dtypes, cfg, args),
        }
    }

    /// A quick launch, ready to queue, or `None` when it does not apply (nothing was
    /// done): the signature is loaded, each argument is exactly what its parameter
    /// expects ([`args::QuickArgs`]), the stream is the default one or a plain stream and
    /// no capture is open on this thread, the grid and block are explicit and within the
    /// limits of the entry that runs (the fast-path conditions choose it, as on the
    /// general path; a checked entry not yet loaded is left to it), the dynamic shared
    /// memory is already allowed, and the kernel is not cooperative.
    #[inline]
    fn quick_launch<'s, 'o>(
        &'s self,
        device: &Device,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        args: &[crate::host::args::Arg<'_>],
        out: &'o mut args::QuickPacked,
    ) -> Option<QuickLaunch<'s, 'o>> {
        // The slot of dtypes of another count could be another signature's.
        if dtypes.len() != def.generics().len() || def.cooperative() {
            return None;
        }
        let kernel = self.loaded_if_present(def, gpu_contract::dtype::slot_of(dtypes))?;
        let stream = match cfg.stream {
            None => self.stream.cu_stream(),
            Some(s) if s.recording.is_none() => s.cuda.as_ref()?.raw,
            Some(_) => return None,
        };
        if crate::host::graph::capturing_here() {
            return None;
        }
        let pointers = kernel.quick.as_ref()?.pack(device, args, out)?;
        let valid = cfg.explicit_within(&self.limits)?;
        let entry = match &kernel.checked {
            Some(checked) if !def.fast_path_holds(&args::Uniforms::of(def, args, &valid)) => {
                checked.get()?
            }
            _ => &kernel.main,
        };
        let fits = |e: &Entry| valid.fits(e.attributes.max_threads_per_block, e.max_dynamic_shared);
        // The general path validates against the main entry before it chooses.
        if !fits(&kernel.main)
            || !fits(entry)
            || valid.shared_mem_bytes > entry.dynamic_shared_allowed.load(Ordering::Relaxed)
        {
            return None;
        }
        Some(QuickLaunch {
            kernel,
            entry,
            valid,
            stream,
            pointers,
        })
    }

    /// Every launch that is not quick: each argument checked against its parameter (and
    /// a mismatch explained), and the launch configuration in full.
    #[inline(never)]
    fn launch_general(
        &self,
        device: &Device,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        args: &[crate::host::args::Arg<'_>],
    ) -> Result<()> {
        let mut packed = args::Packed::new();
        args::check_and_pack(def, dtypes, device, args, &mut packed)?;

        let mut pointers = [std::ptr::null_mut(); args::MAX_C_PARAMS];
        let n = packed.pointers(&mut pointers);
        let fast = |valid: &ValidLaunch| def.fast_path_holds(&args::Uniforms::of(def, args, valid));
        // SAFETY: `pointers[..n]` point to one value per C parameter of `def`'s source, in
        // order and of its type: `check_and_pack` checked each argument against the
        // kernel's parameters (which the attribute made with the source) and laid the
        // values out as the source declares them; the arrays are borrowed by `args` for
        // this call, and a capture that records the launch keeps their memory; the fast
        // path's conditions are the definition's.
        let mut queue =
            || unsafe { self.launch(def, dtypes, cfg, &mut pointers[..n], Some(&fast)) };
        match crate::host::graph::recording_of(def, cfg)? {
            None => queue(),
            Some(recording) => recording.record_cuda(def, args, queue),
        }
    }

    /// Launch `def` specialised for `dtypes`, compiling and loading it on the first call.
    ///
    /// # Safety
    ///
    /// `args` must hold one valid pointer per C parameter of `def`'s source, to a value of
    /// that parameter's type, and the arrays behind them must stay allocated until the
    /// kernel has run (the launch orders their frees after it); `fast` must be the kernel's
    /// fast-path conditions (the definition's, over these arguments).
    #[inline]
    pub(crate) unsafe fn launch(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        cfg: &LaunchConfig<'_>,
        args: &mut [*mut c_void],
        fast: Option<FastPath<'_>>,
    ) -> Result<()> {
        let sig = gpu_contract::dtype::slot_of(dtypes);
        let kernel = match self.loaded_if_present(def, sig) {
            Some(k) => k,
            None => {
                self.precheck(def, cfg)?;
                self.loaded(def, sig, dtypes)?
            }
        };
        let validate = |entry: &Entry| {
            let forall_block = match cfg.shape {
                crate::host::launch_config::Shape::ForAll(_) => entry.forall_block()?,
                crate::host::launch_config::Shape::Explicit { .. } => 0,
            };
            cfg.validate(
                def.name(),
                &self.limits,
                entry.attributes.max_threads_per_block,
                forall_block,
                entry.max_dynamic_shared,
            )
        };
        let Some(mut valid) = validate(&kernel.main)? else {
            return Ok(());
        };
        // With a fast path, the main entry runs only when this launch's values prove its
        // left-out checks redundant; otherwise the checked entry runs (without the
        // conditions, always).
        let mut entry = &kernel.main;
        if let Some(checked) = &kernel.checked {
            let holds = fast.is_some_and(|f| f(&valid));
            if !holds {
                let checked = checked.get_or_try_init(|| self.load_checked(kernel, dtypes))?;
                entry = checked;
                let Some(v) = validate(checked)? else {
                    return Ok(());
                };
                valid = v;
            }
        }
        if valid.shared_mem_bytes > entry.dynamic_shared_allowed.load(Ordering::Relaxed) {
            self.allow_dynamic_shared(entry, valid.shared_mem_bytes)?;
        }
        // The launcher checked that a given stream belongs to this device.
        let stream = match cfg.stream.and_then(|s| s.cuda.as_ref()) {
            Some(s) => s.raw,
            None => self.stream.cu_stream(),
        };
        // SAFETY: the caller's contract; `entry` is the one the fast path's conditions
        // chose, and the launch was validated against it.
        unsafe { self.enqueue(kernel, entry, &valid, stream, args, dtypes) }
    }

    /// Queue `entry` of `kernel` on `stream` with `args`, as validated: what every launch
    /// ends with.
    ///
    /// # Safety
    ///
    /// As for [`CudaDevice::launch`], with `entry` one of `kernel`'s entries and `valid`
    /// within its limits.
    #[inline]
    unsafe fn enqueue(
        &self,
        kernel: &LoadedKernel,
        entry: &Entry,
        valid: &ValidLaunch,
        stream: cudarc::driver::sys::CUstream,
        args: &mut [*mut c_void],
        dtypes: &[DtypeKind],
    ) -> Result<()> {
        let def = kernel.def;
        let launch_err = |source| self.launch_error(def, dtypes, source);
        self.make_current().map_err(launch_err)?;
        self.note_launch(kernel);
        let _range = nvtx::launch_range(|| kernel.signature.clone());
        if def.cooperative() {
            // SAFETY: the caller's contract.
            unsafe { self.launch_cooperative(kernel, entry, valid, stream, args, dtypes)? };
            return self.finish(stream);
        }
        // SAFETY: the caller's contract: one valid pointer per C parameter; the arrays
        // behind them outlive the launch's enqueueing and their frees are ordered after
        // it on the stream.
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
        .map_err(launch_err)?;
        self.finish(stream)
    }

    /// Make the context current on this thread, as cudarc's `bind_to_thread` does, less
    /// its check of errors recorded by cudarc's drops (the next call through cudarc
    /// reports those): one `cuCtxGetCurrent` per launch.
    #[inline]
    fn make_current(&self) -> std::result::Result<(), cudarc::driver::DriverError> {
        let ctx = self.ctx.cu_ctx();
        let mut current = std::ptr::null_mut();
        // SAFETY: writes the calling thread's current context (or null) into `current`.
        unsafe { cudarc::driver::sys::cuCtxGetCurrent(&mut current) }.result()?;
        if current != ctx {
            // SAFETY: `ctx` is live: `self.ctx` holds it.
            unsafe { cudarc::driver::result::ctx::set_current(ctx) }?;
        }
        Ok(())
    }

    /// Let `kernel` take `bytes` of dynamic shared memory per block: more than the default
    /// 48 KB needs `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` set first.
    #[cold]
    fn allow_dynamic_shared(&self, entry: &Entry, bytes: u32) -> Result<()> {
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

    /// After a launch or a graph's replay: nothing, unless launches are synchronous (the
    /// debugging switch); then wait for the work and report its fault.
    #[inline]
    pub(crate) fn finish(&self, stream: cudarc::driver::sys::CUstream) -> Result<()> {
        if !self.synchronous {
            return Ok(());
        }
        self.finish_synchronously(stream)
    }

    #[cold]
    fn finish_synchronously(&self, stream: cudarc::driver::sys::CUstream) -> Result<()> {
        use cudarc::driver::sys::CUstreamCaptureStatus;
        let mut status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: the stream is live for the launch that was just queued on it; `status`
        // is valid for writes.
        unsafe { cudarc::driver::sys::cuStreamIsCapturing(stream, &mut status) }
            .result()
            .map_err(self.driver_error("synchronous launch"))?;
        if status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
            // A launch a capture records has not run: there is nothing to wait for.
            return Ok(());
        }
        // SAFETY: as above.
        unsafe { cudarc::driver::result::stream::synchronize(stream) }
            .map_err(self.driver_error("synchronous launch"))?;
        self.check_faults()
    }

    /// Free and total memory now.
    pub(crate) fn memory_info(&self) -> Result<crate::host::device::MemoryInfo> {
        self.ctx
            .bind_to_thread()
            .map_err(self.driver_error("memory information"))?;
        let (free, total) = cudarc::driver::result::mem_get_info()
            .map_err(self.driver_error("memory information"))?;
        Ok(crate::host::device::MemoryInfo {
            free: free as u64,
            total: total as u64,
        })
    }

    /// The fault a checked kernel recorded, if one did, as an error; cleared for the next.
    /// Called on every path that synchronises, after it has.
    #[inline]
    pub(crate) fn check_faults(&self) -> Result<()> {
        match self.faults.take() {
            None => Ok(()),
            Some(record) => Err(self.fault_error(record)),
        }
    }

    /// The error for a recorded fault, naming the kernel (by its tag) and the check.
    #[cold]
    fn fault_error(&self, r: FaultRecord) -> GpuError {
        let Some(kernel) = self.functions.get(r.kernel_tag) else {
            return GpuError::InvalidArgument(format!(
                "a kernel recorded a fault the runtime cannot attribute (tag {})",
                r.kernel_tag
            ));
        };
        let def = kernel.def;
        let clamp = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        match FaultKind::from_code(r.kind) {
            Some(FaultKind::IndexOutOfBounds) | None => GpuError::OutOfBounds {
                kernel: def.name(),
                param: def.site_name(r.site),
                index: clamp(r.index),
                len: clamp(r.extent),
            },
            Some(FaultKind::Integer) => GpuError::IntegerFault {
                kernel: def.name(),
                signature: kernel.signature.clone(),
                operation: IntOp::from_code(r.site).map_or(
                    "an integer operation Rust defines as a panic",
                    IntOp::message,
                ),
            },
        }
    }

    /// A launch the driver refused: a fault of the context, or a launch error.
    #[cold]
    fn launch_error(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        source: cudarc::driver::DriverError,
    ) -> GpuError {
        if fault::is_sticky(source.0) {
            return self.fault(source);
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
    /// As for [`CudaDevice::launch`].
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
        let threads = valid.block.volume() as i32;
        let mut per_sm = 0i32;
        // SAFETY: `f` is a live function handle; `per_sm` is valid for writes.
        unsafe {
            cudarc::driver::sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut per_sm,
                f,
                threads,
                valid.shared_mem_bytes as usize,
            )
        }
        .result()
        .map_err(GpuError::driver("occupancy query"))?;
        let fit = per_sm.max(0) as u64 * self.limits.multiprocessors as u64;
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
        // SAFETY: as for `launch_kernel` in `launch` (the caller's contract).
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
        .map_err(|source| self.launch_error(def, dtypes, source))?;
        let event = OwnedEvent::record(&self.ctx, stream)
            .map_err(self.driver_error("ordering cooperative launches"))?;
        *last = Some((StreamHandle(stream), event));
        Ok(())
    }

    #[inline]
    fn loaded(
        &self,
        def: &'static KernelDef,
        sig: usize,
        dtypes: &[DtypeKind],
    ) -> Result<&LoadedKernel> {
        let id = signature_id(&def.signature_slots()[sig])?;
        self.functions
            .get_or_load(id, || self.load(def, id, dtypes))
    }

    /// The loaded kernel, if an earlier launch loaded it.
    #[inline]
    fn loaded_if_present(&self, def: &'static KernelDef, sig: usize) -> Option<&LoadedKernel> {
        let id = signature_id(&def.signature_slots()[sig]).ok()?;
        self.functions.get(id)
    }

    /// Launch checks that need no compiled kernel, made before a first launch compiles
    /// one, so a bad configuration costs no compilation.
    #[cold]
    fn precheck(&self, def: &'static KernelDef, cfg: &LaunchConfig<'_>) -> Result<()> {
        if let crate::host::launch_config::Shape::Explicit { .. } = cfg.shape {
            cfg.validate(
                def.name(),
                &self.limits,
                self.limits.max_threads_per_block,
                256,
                self.limits.max_shared_mem_optin,
            )?;
        }
        Ok(())
    }

    /// The driver handle of `def`'s `dtypes` signature, compiling and loading it if needed.
    pub(crate) fn cu_function(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
    ) -> Result<cudarc::driver::sys::CUfunction> {
        def.check_dtypes(dtypes)?;
        let sig = gpu_contract::dtype::slot_of(dtypes);
        Ok(self.loaded(def, sig, dtypes)?.main.function.cu_function())
    }

    /// Compile and load every entry of `def`'s `dtypes` signature (the checked one too,
    /// which launches otherwise load when they first need it).
    pub(crate) fn precompile(&self, def: &'static KernelDef, dtypes: &[DtypeKind]) -> Result<()> {
        def.check_dtypes(dtypes)?;
        let sig = gpu_contract::dtype::slot_of(dtypes);
        let kernel = self.loaded(def, sig, dtypes)?;
        if let Some(checked) = &kernel.checked {
            checked.get_or_try_init(|| self.load_checked(kernel, dtypes))?;
        }
        Ok(())
    }

    /// The attributes of `def`'s `dtypes` signature, compiling and loading it if needed.
    pub(crate) fn attributes(
        &self,
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
    ) -> Result<FunctionAttributes> {
        def.check_dtypes(dtypes)?; // count and bounds, before the slot is computed
        let sig = gpu_contract::dtype::slot_of(dtypes);
        Ok(self.loaded(def, sig, dtypes)?.main.attributes)
    }

    #[cold]
    fn load(&self, def: &'static KernelDef, id: u32, dtypes: &[DtypeKind]) -> Result<LoadedKernel> {
        if self.has_faulted() {
            return Err(self.lost());
        }
        // A first launch inside a capture's closure loads the module and sets its fault
        // context: calls the capture mode of the thread would refuse, and which the
        // capture does not record (they run now, outside the capture's stream).
        let _relaxed = crate::host::graph::capturing_here().then(graph::relax_capture_mode);
        let image = def.compile_for_arch(dtypes, &self.arch())?;
        let module = self.load_module(image, id)?;
        let main = self.entry(&module, def.c_name())?;
        Ok(LoadedKernel {
            def,
            signature: def.signature(dtypes),
            main,
            checked: def.has_fast_path().then(once_cell::sync::OnceCell::new),
            id,
            quick: args::QuickArgs::new(def, dtypes),
            cooperative_last: std::sync::Mutex::new(None),
        })
    }

    /// The checked entry of `kernel` (which has a fast path): its own module, compiled
    /// (or read from the disk cache) and loaded at the first launch that needs it.
    #[cold]
    fn load_checked(&self, kernel: &LoadedKernel, dtypes: &[DtypeKind]) -> Result<Entry> {
        if self.has_faulted() {
            return Err(self.lost());
        }
        let _relaxed = crate::host::graph::capturing_here().then(graph::relax_capture_mode);
        let def = kernel.def;
        let image = def.compile_checked_for_arch(dtypes, &self.arch())?;
        let module = self.load_module(image, kernel.id)?;
        self.entry(&module, &gpu_contract::kernel::checked_entry(def.c_name()))
    }

    /// Load a compiled module of signature `id` and point its fault context, if it has
    /// one, at the device's record, tagged with `id` so a fault names the kernel.
    fn load_module(
        &self,
        image: Vec<u8>,
        id: u32,
    ) -> Result<std::sync::Arc<cudarc::driver::CudaModule>> {
        // A CUBIN is an ELF image; anything else is kept PTX (NUL-terminated, checked by
        // the cache), which the driver compiles.
        let operation = if image.starts_with(b"\x7fELF") {
            "module load"
        } else {
            "module load of kept PTX through the driver's JIT (the kernel cache has no CUBIN \
             for this GPU and NVRTC is absent; a driver older than the NVRTC that wrote the \
             PTX, or CUDA_DISABLE_PTX_JIT, refuses it: install NVRTC, or fill the cache for \
             this GPU)"
        };
        let module = self
            .ctx
            .load_module(Ptx::from_binary(image))
            .map_err(self.driver_error(operation))?;
        // A module with checks has the fault context global.
        match module.get_global(FAULT_CONTEXT_SYMBOL, &self.stream) {
            Ok(mut global) => {
                let context = self.faults.context(id);
                let bytes: [u8; std::mem::size_of::<gpu_contract::fault::FaultContext>()] =
                    fault_context_bytes(&context);
                self.stream
                    .memcpy_htod(&bytes[..], &mut global)
                    .map_err(self.driver_error("setting the fault context"))?;
            }
            Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_FOUND => {}
            Err(e) => return Err(self.driver_error("fault context lookup")(e)),
        }
        Ok(module)
    }

    /// The `__global__` function `name` of a loaded module, with its attributes.
    fn entry(
        &self,
        module: &std::sync::Arc<cudarc::driver::CudaModule>,
        name: &str,
    ) -> Result<Entry> {
        let function = module
            .load_function(name)
            .map_err(self.driver_error("kernel lookup"))?;
        let cu = function.cu_function();
        let attr = |a: CUfunction_attribute| {
            // SAFETY: the function handle is live (its module is held by `function`).
            unsafe { cudarc::driver::result::function::get_function_attribute(cu, a) }
                .map(|v| v as u32)
                .map_err(GpuError::driver("kernel attribute query"))
        };
        use CUfunction_attribute::*;
        let attributes = FunctionAttributes {
            registers_per_thread: attr(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: attr(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            local_bytes_per_thread: attr(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            const_bytes: attr(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)?,
            max_threads_per_block: attr(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?
                .min(self.limits.max_threads_per_block),
            ptx_version: attr(CU_FUNC_ATTRIBUTE_PTX_VERSION)?,
            binary_version: attr(CU_FUNC_ATTRIBUTE_BINARY_VERSION)?,
        };
        let max_dynamic_shared = self
            .limits
            .max_shared_mem_optin
            .saturating_sub(attributes.static_shared_bytes);
        let dynamic_shared_allowed =
            AtomicU32::new(attr(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?);
        Ok(Entry {
            function,
            attributes,
            forall_block: AtomicU32::new(0),
            max_dynamic_shared,
            dynamic_shared_allowed,
        })
    }
}

impl Entry {
    /// The block size of a `forall` launch, found at the first one.
    #[inline]
    fn forall_block(&self) -> Result<u32> {
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
}

/// The bytes of a fault context, as the C struct lays them out (little-endian).
fn fault_context_bytes(c: &gpu_contract::fault::FaultContext) -> [u8; 24] {
    let mut out = [0u8; 24];
    out[0..8].copy_from_slice(&c.claim.to_le_bytes());
    out[8..16].copy_from_slice(&c.record.to_le_bytes());
    out[16..20].copy_from_slice(&c.kernel_tag.to_le_bytes());
    out[20..24].copy_from_slice(&c.reserved.to_le_bytes());
    out
}

/// A context on device `ordinal` (its primary context), free of an earlier fault.
///
/// After a kernel faults, the driver may keep refusing contexts on the device: the H200's
/// driver 580 answers `cuDevicePrimaryCtxRetain` and `cuCtxCreate` with the fault's error
/// for the rest of the process, even after `cuDevicePrimaryCtxReset` (measured in the GPU
/// suite). We reset and retry once, and otherwise return [`GpuError::DeviceLost`], which
/// says to restart the process.
fn fresh_context(ordinal: usize) -> Result<Arc<CudaContext>> {
    let refused = match CudaContext::new(ordinal) {
        Ok(ctx) => match ctx.synchronize() {
            Err(e) if fault::is_sticky(e.0) => e,
            _ => return Ok(ctx),
        },
        Err(e) if fault::is_sticky(e.0) => e,
        Err(e) => return Err(GpuError::driver("context creation")(e)),
    };
    let cu_device = cudarc::driver::result::device::get(ordinal as i32)
        .map_err(GpuError::driver("device lookup"))?;
    // SAFETY: no device of ours uses this context (a faulted one is only replaced once
    // dropped), and whatever else in the process holds it has lost it already.
    let reset = unsafe { cudarc::driver::sys::cuDevicePrimaryCtxReset_v2(cu_device) }.result();
    match reset.and_then(|()| CudaContext::new(ordinal)) {
        Ok(ctx) => Ok(ctx),
        Err(e) if fault::is_sticky(e.0) => Err(GpuError::DeviceLost {
            device: format!("CUDA device {ordinal}"),
            ordinal,
            first: format!("{refused}; the driver refuses new contexts in this process"),
        }),
        Err(e) => Err(GpuError::driver("context creation after a fault")(e)),
    }
}

/// The block size for `forall` launches of `f`: the smallest of 256, 512 and 1024 threads
/// (then 128, 64, 32) that reaches the best occupancy `f` can have. Occupancy alone is not
/// enough: for a streaming kernel 1024 and 128 threads per block both fill the H200, yet
/// measured 3001 and 2537 GB/s against 3495 GB/s at 256 (../shared/PERFORMANCE.md), so
/// among equals we prefer 256.
fn forall_block_size(f: cudarc::driver::sys::CUfunction, max_threads: u32) -> Result<u32> {
    let occupancy = |block: u32| -> Result<u64> {
        let mut blocks = 0i32;
        // SAFETY: `f` is a live function handle; `blocks` is valid for writes.
        unsafe {
            cudarc::driver::sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut blocks,
                f,
                block as i32,
                0,
            )
        }
        .result()
        .map_err(GpuError::driver("occupancy query"))?;
        Ok(blocks.max(0) as u64 * block as u64)
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
