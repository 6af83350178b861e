//! Device globals (`#[gpu_global]`) on a GPU: one copy per device, made from the
//! initialiser when the first module that names the global is loaded; each module's
//! symbol pointed at it (a `__device__` pointer) or filled from it (a `__constant__`
//! array, refilled at every host write); and the order between the launches and host
//! copies that touch it.
//!
//! Order: each copy keeps the event after the last launch that named it. A launch that
//! names globals waits for each one's event on its own stream (`cuStreamWaitEvent`), is
//! queued, and records the new event, all under the device's lock of its globals; a host
//! read or write waits for the event first. So launches that name one global never
//! overlap, whatever streams they use, and see each other's writes in launch order.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUdeviceptr, CUstream};

use super::handles::OwnedEvent;
use super::CudaDevice;
use crate::def::module_array::GlobalSymbol;
use crate::error::{GpuError, Result};

/// A device's copies of the globals its modules name, by key.
#[derive(Default)]
pub(crate) struct CudaGlobals {
    copies: Mutex<HashMap<usize, CudaGlobal>>,
}

/// One global's copy on a device.
struct CudaGlobal {
    name: &'static str,
    /// An allocation of at least 16 zeroed bytes, never null: a kernel that only reads
    /// an empty global reads its element 0 (a clamped index) before it faults.
    ptr: CUdeviceptr,
    /// The global's bytes (the allocation's first ones).
    bytes: usize,
    /// After the last launch or copy that used it.
    last: Option<Arc<OwnedEvent>>,
    /// The `__constant__` arrays of the modules that read it (a constant global), each
    /// with its module, kept loaded while the address is here.
    constants: Vec<(CUdeviceptr, Arc<cudarc::driver::CudaModule>)>,
    ctx: Arc<cudarc::driver::CudaContext>,
}

// SAFETY: the device pointers are addresses in the context, usable from any thread once
// it is bound; the event is `Send`.
unsafe impl Send for CudaGlobal {}

impl Drop for CudaGlobal {
    fn drop(&mut self) {
        // The last launch or copy that used it has finished first.
        let _ = self.settle();
        // SAFETY: allocated by `malloc_sync` in `copy_of`, freed once, after the work that
        // used it (above; `cuMemFree` waits for the device besides).
        let _ = self
            .ctx
            .bind_to_thread()
            .and_then(|()| unsafe { cudarc::driver::result::free_sync(self.ptr) });
    }
}

impl CudaGlobal {
    /// Block until the last launch that named it has finished.
    fn settle(&mut self) -> std::result::Result<(), cudarc::driver::DriverError> {
        if let Some(e) = self.last.take() {
            e.synchronize()?;
        }
        Ok(())
    }
}

impl CudaDevice {
    /// The copy of `g`'s global, made (from its initial elements) at the first call.
    fn copy_of<'m>(
        &self,
        copies: &'m mut HashMap<usize, CudaGlobal>,
        g: &GlobalSymbol,
    ) -> Result<&'m mut CudaGlobal> {
        use std::collections::hash_map::Entry;
        match copies.entry(g.key()) {
            Entry::Occupied(e) => Ok(e.into_mut()),
            Entry::Vacant(v) => {
                let mut init = g.array.elements().bytes();
                let bytes = init.len();
                init.resize(bytes.max(16), 0);
                let op = |e| self.driver_error("setting a device global")(e);
                self.ctx.bind_to_thread().map_err(&op)?;
                // SAFETY: an allocation of `init.len()` bytes in the bound context.
                let ptr = unsafe { cudarc::driver::result::malloc_sync(init.len()) }.map_err(
                    self.allocation_error(
                        "device",
                        init.len() as u64,
                        "allocating a device global",
                    ),
                )?;
                let copy = v.insert(CudaGlobal {
                    name: g.info.name,
                    ptr,
                    bytes,
                    last: None,
                    constants: Vec::new(),
                    ctx: self.ctx.clone(),
                });
                // SAFETY: the allocation holds `init.len()` bytes; nothing reads it yet.
                unsafe { cudarc::driver::result::memcpy_htod_sync(ptr, &init) }.map_err(&op)?;
                copy.last = Some(self.after_copies().map_err(&op)?);
                Ok(copy)
            }
        }
    }

    /// An event after the copies queued on the legacy default stream so far (a copy from
    /// pageable host memory, or between device buffers, may return before it is done):
    /// the next launch that names the global waits for it.
    fn after_copies(&self) -> std::result::Result<Arc<OwnedEvent>, cudarc::driver::DriverError> {
        OwnedEvent::record(&self.ctx, std::ptr::null_mut()).map(Arc::new)
    }

    /// Point a freshly loaded module's symbols at the device's copies of the globals it
    /// names: a pointer symbol to the copy, a constant global's array filled from it (and
    /// refilled at each host write, for as long as the device lives: the module is kept
    /// loaded for it). A symbol whose size is not the global's is an error, never a copy.
    pub(super) fn bind_globals(
        &self,
        module: &Arc<cudarc::driver::CudaModule>,
        symbols: &[GlobalSymbol],
    ) -> Result<()> {
        let mut copies = self
            .globals
            .copies
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let op = |e| self.driver_error("setting a device global")(e);
        // Registered only once every symbol is bound.
        let mut constants = Vec::new();
        for g in symbols {
            let (symbol, symbol_bytes) = match module.get_global(g.c_name, &self.stream) {
                Ok(view) => {
                    use cudarc::driver::DevicePtr;
                    let len = view.len();
                    let (ptr, _record) = view.device_ptr(&self.stream);
                    (ptr, len)
                }
                // A module that does not use the symbol may have lost it.
                Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NOT_FOUND => continue,
                Err(e) => return Err(self.driver_error("device global lookup")(e)),
            };
            let copy = self.copy_of(&mut copies, g)?;
            let fits = if g.info.constant {
                symbol_bytes >= copy.bytes
            } else {
                symbol_bytes == std::mem::size_of::<CUdeviceptr>()
            };
            if !fits {
                return Err(GpuError::InvalidArgument(format!(
                    "the module's symbol `{}` of `{}` has {symbol_bytes} bytes, which do not \
                     hold the global's {}",
                    g.c_name, copy.name, copy.bytes
                )));
            }
            copy.settle().map_err(&op)?;
            // SAFETY: `symbol` is the module's, checked above to hold the copy's bytes (a
            // constant array) or a pointer; the copy holds `bytes` bytes.
            unsafe {
                if g.info.constant {
                    if copy.bytes > 0 {
                        cudarc::driver::result::memcpy_dtod_sync(symbol, copy.ptr, copy.bytes)
                            .map_err(&op)?;
                    }
                    constants.push((g.key(), symbol));
                } else {
                    cudarc::driver::result::memcpy_htod_sync(symbol, &copy.ptr.to_le_bytes()[..])
                        .map_err(&op)?;
                }
            }
            copy.last = Some(self.after_copies().map_err(&op)?);
        }
        for (key, symbol) in constants {
            if let Some(copy) = copies.get_mut(&key) {
                copy.constants.push((symbol, module.clone()));
            }
        }
        Ok(())
    }

    /// Queue a launch of a kernel that names the globals at `keys` (each copy made when
    /// its module was loaded) on `stream`, after the last launch that named each, by
    /// `queue`; the launch becomes the last for each.
    pub(super) fn launch_on_globals(
        &self,
        kernel: &'static str,
        keys: &[usize],
        stream: CUstream,
        queue: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        if self.is_capturing(stream, "a launch that names a device global")? {
            return Err(GpuError::InvalidLaunch {
                kernel,
                reason: "it names a #[gpu_global], whose launches are ordered by events across \
                         streams, which a graph capture cannot record; launch it outside the \
                         capture"
                    .to_owned(),
            });
        }
        let mut copies = self
            .globals
            .copies
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let op = |e| self.driver_error("ordering launches on a device global")(e);
        for key in keys {
            if let Some(e) = copies.get(key).and_then(|c| c.last.as_ref()) {
                // SAFETY: both handles are live.
                unsafe {
                    cudarc::driver::result::stream::wait_event(
                        stream,
                        e.raw(),
                        cudarc::driver::sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT,
                    )
                }
                .map_err(&op)?;
            }
        }
        queue()?;
        let event = Arc::new(OwnedEvent::record(&self.ctx, stream).map_err(&op)?);
        for key in keys {
            if let Some(c) = copies.get_mut(key) {
                c.last = Some(event.clone());
            }
        }
        Ok(())
    }

    /// Run `f` on `g`'s copy (made if none is) once every launch queued before that names
    /// it has finished, with the device's globals locked, so none starts meanwhile. A
    /// fault one of those launches recorded is the error, as a copy of an array reports
    /// it.
    fn with_settled_copy<R>(
        &self,
        g: &GlobalSymbol,
        operation: &'static str,
        f: impl FnOnce(&mut CudaGlobal) -> Result<R>,
    ) -> Result<R> {
        let mut copies = self
            .globals
            .copies
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let copy = self.copy_of(&mut copies, g)?;
        copy.settle().map_err(self.driver_error(operation))?;
        self.check_faults()?;
        f(copy)
    }

    /// The bytes of `g`'s copy, after every launch queued before that names it.
    pub(crate) fn read_global(&self, g: &GlobalSymbol) -> Result<Vec<u8>> {
        self.with_settled_copy(g, "reading a device global", |copy| self.read_copy(copy))
    }

    fn read_copy(&self, copy: &CudaGlobal) -> Result<Vec<u8>> {
        let op = |e| self.driver_error("reading a device global")(e);
        let mut out = vec![0u8; copy.bytes];
        if copy.bytes > 0 {
            self.ctx.bind_to_thread().map_err(&op)?;
            // SAFETY: the copy holds `bytes` bytes; no launch that names it is running.
            unsafe { cudarc::driver::result::memcpy_dtoh_sync(&mut out, copy.ptr) }.map_err(&op)?;
        }
        Ok(out)
    }

    /// Replace the bytes of `g`'s copy (and of every module's constant array of it), after
    /// every launch queued before that names it and before every one queued after.
    pub(crate) fn write_global(&self, g: &GlobalSymbol, bytes: &[u8]) -> Result<()> {
        self.with_settled_copy(g, "writing a device global", |copy| {
            self.write_copy(copy, bytes)
        })
    }

    fn write_copy(&self, copy: &mut CudaGlobal, bytes: &[u8]) -> Result<()> {
        if bytes.len() != copy.bytes {
            return Err(GpuError::InvalidArgument(format!(
                "`{}` holds {} bytes; {} were given",
                copy.name,
                copy.bytes,
                bytes.len()
            )));
        }
        let op = |e| self.driver_error("writing a device global")(e);
        if copy.bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(&op)?;
        // SAFETY: the copy holds `bytes` bytes, and each constant array at least as many
        // (`bind_globals` checked), its module kept loaded beside it; no launch that names
        // the global is running, and none starts while the lock is held.
        unsafe {
            cudarc::driver::result::memcpy_htod_sync(copy.ptr, bytes).map_err(&op)?;
            for (symbol, _module) in &copy.constants {
                cudarc::driver::result::memcpy_dtod_sync(*symbol, copy.ptr, copy.bytes)
                    .map_err(&op)?;
            }
        }
        copy.last = Some(self.after_copies().map_err(&op)?);
        Ok(())
    }
}
