//! Driver objects the host API holds: streams, events and page-locked host memory, each
//! destroyed with its last owner, with the context bound before every call (a handle may
//! be used from any thread).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{CUevent, CUevent_flags, CUresult, CUstream};
use cudarc::driver::{CudaContext, DriverError};

/// A CUDA stream: blocking, as the host API's streams are, or non-blocking, as a capture's.
#[derive(Debug)]
pub(crate) struct OwnedStream {
    pub raw: CUstream,
    pub ctx: Arc<CudaContext>,
}

// SAFETY: a CUstream handle may be used from any thread of the process; the context is
// bound before each use.
unsafe impl Send for OwnedStream {}
// SAFETY: as above.
unsafe impl Sync for OwnedStream {}

impl OwnedStream {
    /// A new blocking stream: it waits for the legacy default stream and the default
    /// stream waits for it, so work on it is ordered with the device's other work.
    pub(crate) fn create(ctx: &Arc<CudaContext>) -> Result<OwnedStream, DriverError> {
        OwnedStream::create_with(ctx, cudarc::driver::result::stream::StreamKind::Default)
    }

    /// A new stream of `kind`.
    pub(crate) fn create_with(
        ctx: &Arc<CudaContext>,
        kind: cudarc::driver::result::stream::StreamKind,
    ) -> Result<OwnedStream, DriverError> {
        ctx.bind_to_thread()?;
        let raw = cudarc::driver::result::stream::create(kind)?;
        Ok(OwnedStream {
            raw,
            ctx: ctx.clone(),
        })
    }

    /// Block until the stream's work has finished.
    pub(crate) fn synchronize(&self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: the stream is live (held by `self`).
        unsafe { cudarc::driver::result::stream::synchronize(self.raw) }
    }

    /// Make later work on this stream wait for `event`.
    pub(crate) fn wait(&self, event: &OwnedEvent) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: both handles are live.
        unsafe {
            cudarc::driver::result::stream::wait_event(
                self.raw,
                event.raw,
                cudarc::driver::sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
            )
        }
    }
}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        // SAFETY: the stream was created by `create` and is destroyed once; the driver
        // lets queued work finish first.
        let _ = self
            .ctx
            .bind_to_thread()
            .and_then(|_| unsafe { cudarc::driver::result::stream::destroy(self.raw) });
    }
}

/// A CUDA event recorded on a stream.
#[derive(Debug)]
pub(crate) struct OwnedEvent {
    raw: CUevent,
    ctx: Arc<CudaContext>,
}

// SAFETY: a CUevent may be used from any thread of the process; the context is bound
// before each use.
unsafe impl Send for OwnedEvent {}
// SAFETY: as above.
unsafe impl Sync for OwnedEvent {}

impl OwnedEvent {
    /// An event recorded after the work queued on `stream` (the raw handle of a stream of
    /// `ctx`, or the legacy default stream) so far.
    pub(crate) fn record(
        ctx: &Arc<CudaContext>,
        stream: CUstream,
    ) -> Result<OwnedEvent, DriverError> {
        ctx.bind_to_thread()?;
        let raw = cudarc::driver::result::event::create(CUevent_flags::CU_EVENT_DEFAULT)?;
        let event = OwnedEvent {
            raw,
            ctx: ctx.clone(),
        };
        // SAFETY: both handles are live; `stream` belongs to `ctx`.
        unsafe { cudarc::driver::result::event::record(raw, stream) }?;
        Ok(event)
    }

    /// The raw handle, valid while `self` is.
    pub(crate) fn raw(&self) -> CUevent {
        self.raw
    }

    /// Block until the work before the event has finished.
    pub(crate) fn synchronize(&self) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: the event is live.
        unsafe { cudarc::driver::result::event::synchronize(self.raw) }
    }

    /// Whether the work before the event has finished.
    pub(crate) fn is_complete(&self) -> Result<bool, DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: the event is live.
        match unsafe { cudarc::driver::result::event::query(self.raw) } {
            Ok(()) => Ok(true),
            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Milliseconds from this event to `end`.
    pub(crate) fn elapsed_ms(&self, end: &OwnedEvent) -> Result<f32, DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: both events are live.
        unsafe { cudarc::driver::result::event::elapsed(self.raw, end.raw) }
    }
}

impl Drop for OwnedEvent {
    fn drop(&mut self) {
        // SAFETY: the event was created by `record` and is destroyed once.
        let _ = self
            .ctx
            .bind_to_thread()
            .and_then(|_| unsafe { cudarc::driver::result::event::destroy(self.raw) });
    }
}

/// Page-locked host memory of `bytes` bytes, zeroed.
#[derive(Debug)]
pub(crate) struct PinnedHost {
    pub ptr: *mut c_void,
    ctx: Arc<CudaContext>,
}

// SAFETY: plain memory owned by this value; who reads or writes it is ordered by its
// owner (`PinnedBuffer`).
unsafe impl Send for PinnedHost {}
// SAFETY: as above.
unsafe impl Sync for PinnedHost {}

impl PinnedHost {
    /// Allocate `bytes > 0` bytes, zeroed.
    pub(crate) fn alloc(ctx: &Arc<CudaContext>, bytes: usize) -> Result<PinnedHost, DriverError> {
        ctx.bind_to_thread()?;
        // SAFETY: a fresh allocation of `bytes` bytes, zeroed before it is handed out.
        let ptr = unsafe { cudarc::driver::result::malloc_host(bytes, 0) }?;
        // SAFETY: `ptr` holds `bytes` writable bytes.
        unsafe { std::ptr::write_bytes(ptr as *mut u8, 0, bytes) };
        Ok(PinnedHost {
            ptr,
            ctx: ctx.clone(),
        })
    }

    /// Queue a copy of `bytes` bytes from this memory to device address `dst` on
    /// `stream`.
    ///
    /// # Safety
    ///
    /// `bytes` must be within this allocation and `dst`'s; the memory must stay
    /// unwritten (and allocated) until the copy has finished.
    pub(crate) unsafe fn copy_to_device(
        &self,
        dst: u64,
        bytes: usize,
        stream: CUstream,
    ) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: the caller's contract.
        unsafe { cudarc::driver::sys::cuMemcpyHtoDAsync_v2(dst, self.ptr, bytes, stream).result() }
    }

    /// Queue a copy of `bytes` bytes from device address `src` into this memory.
    ///
    /// # Safety
    ///
    /// As for [`copy_to_device`](Self::copy_to_device), and nothing may read this memory
    /// until the copy has finished.
    pub(crate) unsafe fn copy_from_device(
        &self,
        src: u64,
        bytes: usize,
        stream: CUstream,
    ) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        // SAFETY: the caller's contract.
        unsafe { cudarc::driver::sys::cuMemcpyDtoHAsync_v2(self.ptr, src, bytes, stream).result() }
    }
}

impl Drop for PinnedHost {
    fn drop(&mut self) {
        // SAFETY: allocated by `malloc_host` in `alloc`, freed once; the owner waits for
        // the copies that use it before dropping it.
        let _ = self
            .ctx
            .bind_to_thread()
            .and_then(|_| unsafe { cudarc::driver::result::free_host(self.ptr) });
    }
}

/// Whether a driver error is an allocation failure.
pub(crate) fn is_out_of_memory(e: &DriverError) -> bool {
    e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY
}
