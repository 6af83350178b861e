//! One CUDA device: its context and default stream, its limits, the fault record its
//! checked kernels report to, opening it, waiting for it, and what a synchronisation
//! reports. How many devices there are is asked here too.

use std::sync::atomic::AtomicPtr;
use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaStream};
use gpu_contract::check_names::PanicSite;
use gpu_contract::fault::{FaultKind, FaultRecord, IntOp};

use super::fault;
use super::fault_record::FaultRecordMemory;
use super::function_table::FunctionTable;
use super::libraries;
use super::modules::LoadedKernel;
use crate::error::{GpuError, Result};
use crate::launch::dims::DeviceLimits;

/// One CUDA device: its context, default stream, limits and compiled kernels.
pub(crate) struct CudaDevice {
    pub ctx: Arc<CudaContext>,
    pub stream: Arc<CudaStream>,
    pub ordinal: usize,
    pub compute_capability: (u32, u32),
    pub limits: DeviceLimits,
    pub(super) functions: FunctionTable<LoadedKernel>,
    /// The kernel launched last, for naming it in a fault (see `fault.rs`).
    pub(super) last_launch: AtomicPtr<LoadedKernel>,
    /// The most local memory per thread of a kernel launched so far: a launch that needs
    /// more makes the driver grow its reservation, deep in its own stack (`launch.rs`).
    pub(super) local_launched: std::sync::atomic::AtomicU32,
    /// The first sticky error, once the context has faulted.
    pub(super) first_fault: OnceLock<String>,
    /// Where checked kernels record their first fault.
    pub(super) faults: FaultRecordMemory,
    /// Whether every launch waits for its kernel and reports its fault (the debugging
    /// switch [`SYNC_ENV`](crate::env::SYNC_ENV)).
    pub(super) synchronous: bool,
    /// The device's copies of the `#[gpu_global]`s its modules name.
    pub(super) globals: super::globals::CudaGlobals,
}

/// How many CUDA devices there are: 0 without a driver or a device.
pub(crate) fn device_count() -> usize {
    if libraries::require_driver().is_err() {
        return 0;
    }
    // `cuInit` takes more stack than a small thread has (see `Device::cuda`).
    let count = || {
        cudarc::driver::result::init().ok()?;
        cudarc::driver::result::device::get_count().ok()
    };
    crate::backend::stack_room::with_room(1024 * 1024, count)
        .ok()
        .flatten()
        .map_or(0, |n| n.max(0) as usize)
}

impl CudaDevice {
    /// Open device `ordinal`: its context (free of an earlier fault), its limits, the
    /// printf buffer's size and its fault record. `prefetch` runs once the driver and the
    /// device are known to be there, before the context is made (which takes a few hundred
    /// milliseconds): the host API hands the compile layer's prefetch of its inputs.
    pub(crate) fn open(ordinal: usize, prefetch: fn()) -> Result<CudaDevice> {
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
        prefetch();
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
            local_launched: std::sync::atomic::AtomicU32::new(0),
            first_fault: OnceLock::new(),
            faults,
            synchronous: crate::env::flag(crate::env::SYNC_ENV),
            globals: Default::default(),
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

    /// Make the context current on this thread, as cudarc's `bind_to_thread` does, less
    /// its check of errors recorded by cudarc's drops (the next call through cudarc
    /// reports those): one `cuCtxGetCurrent` per launch.
    #[inline]
    pub(crate) fn make_current(&self) -> std::result::Result<(), cudarc::driver::DriverError> {
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

    /// Wait for all work queued on the device, then report a fault a checked kernel
    /// recorded.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.ctx
            .synchronize()
            .map_err(self.driver_error("device synchronize"))?;
        self.check_faults()
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

    /// Whether a capture is recording `stream` (a live stream) now.
    pub(super) fn is_capturing(
        &self,
        stream: cudarc::driver::sys::CUstream,
        operation: &'static str,
    ) -> Result<bool> {
        use cudarc::driver::sys::CUstreamCaptureStatus;
        let mut status = CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
        // SAFETY: the caller's stream is live; `status` is valid for writes.
        unsafe { cudarc::driver::sys::cuStreamIsCapturing(stream, &mut status) }
            .result()
            .map_err(self.driver_error(operation))?;
        Ok(status != CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
    }

    #[cold]
    fn finish_synchronously(&self, stream: cudarc::driver::sys::CUstream) -> Result<()> {
        if self.is_capturing(stream, "synchronous launch")? {
            // A launch a capture records has not run: there is nothing to wait for.
            return Ok(());
        }
        // SAFETY: as above.
        unsafe { cudarc::driver::result::stream::synchronize(stream) }
            .map_err(self.driver_error("synchronous launch"))?;
        self.check_faults()
    }

    /// Free and total memory now, in bytes.
    pub(crate) fn memory_info(&self) -> Result<(u64, u64)> {
        self.ctx
            .bind_to_thread()
            .map_err(self.driver_error("memory information"))?;
        let (free, total) = cudarc::driver::result::mem_get_info()
            .map_err(self.driver_error("memory information"))?;
        Ok((free as u64, total as u64))
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
            Some(FaultKind::Panic) => {
                let site = PanicSite::decode(def.site_name(r.site));
                GpuError::Panic {
                    kernel: def.name(),
                    location: site
                        .as_ref()
                        .map_or_else(|| "an unknown place".to_owned(), |s| s.location.clone()),
                    message: site.map_or_else(
                        || "a panic the runtime cannot describe".to_owned(),
                        |s| s.message([r.index, r.extent]),
                    ),
                }
            }
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
