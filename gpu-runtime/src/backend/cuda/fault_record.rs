//! The device-wide record of the first fault a checked kernel met (see
//! `gpu_contract::fault`).
//!
//! The claim word is device memory (an atomic only kernels touch); the record itself is
//! host-mapped pinned memory, written by the one thread that won the claim, with its flag
//! last. Reading it costs one load of host memory on the paths that synchronise anyway;
//! only when the flag is set does the runtime take the lock, read the record, and reset the
//! flag and the claim for the next fault.

use std::sync::Mutex;

use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use gpu_contract::fault::{FaultContext, FaultRecord};

use crate::error::{GpuError, Result};

/// A device's fault record.
pub(crate) struct FaultRecordMemory {
    /// The record, host-mapped (`cuMemHostAlloc` with `DEVICEMAP`).
    host: *mut FaultRecord,
    /// Its device address.
    record_device: u64,
    /// The claim word.
    claim: CudaSlice<u32>,
    claim_device: u64,
    /// Held while a fault is read and reset.
    reading: Mutex<()>,
}

// SAFETY: the host record is plain memory owned by this value; it is read with volatile
// loads, and written only under `reading` (and by the device, which the flag orders).
unsafe impl Send for FaultRecordMemory {}
// SAFETY: as above.
unsafe impl Sync for FaultRecordMemory {}

impl FaultRecordMemory {
    /// Allocate the record and claim word on the device of `stream` (whose context is
    /// bound).
    pub(crate) fn new(stream: &std::sync::Arc<CudaStream>) -> Result<FaultRecordMemory> {
        let driver = GpuError::driver("fault record allocation");
        let bytes = std::mem::size_of::<FaultRecord>();
        // SAFETY: a fresh allocation of `bytes` bytes; zeroed below before any use.
        let host = unsafe {
            cudarc::driver::result::malloc_host(
                bytes,
                cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP
                    | cudarc::driver::sys::CU_MEMHOSTALLOC_PORTABLE,
            )
        }
        .map_err(driver)? as *mut FaultRecord;
        // SAFETY: `host` holds one `FaultRecord`, and all-zero is a valid one.
        unsafe { host.write_volatile(FaultRecord::default()) };
        let mut record_device = 0u64;
        // SAFETY: `host` was allocated mapped just now; `record_device` is valid for writes.
        let mapped = unsafe {
            cudarc::driver::sys::cuMemHostGetDevicePointer_v2(
                &mut record_device,
                host as *mut std::ffi::c_void,
                0,
            )
        };
        if mapped != CUresult::CUDA_SUCCESS {
            // SAFETY: allocated above, freed once.
            let _ = unsafe { cudarc::driver::result::free_host(host as *mut std::ffi::c_void) };
            return Err(GpuError::driver("mapping the fault record")(
                cudarc::driver::DriverError(mapped),
            ));
        }
        let claim = stream
            .alloc_zeros::<u32>(1)
            .map_err(GpuError::driver("fault claim allocation"))?;
        let claim_device = {
            let (p, _record) = claim.device_ptr(stream);
            p
        };
        Ok(FaultRecordMemory {
            host,
            record_device,
            claim,
            claim_device,
            reading: Mutex::new(()),
        })
    }

    /// What a module's `gt_fault_context` is set to for the kernel signature `tag`.
    pub(crate) fn context(&self, tag: u32) -> FaultContext {
        FaultContext {
            claim: self.claim_device,
            record: self.record_device,
            kernel_tag: tag,
            reserved: 0,
        }
    }

    /// The recorded fault, if there is one, cleared for the next. Call after the work
    /// that may have faulted has finished (a synchronisation).
    #[inline]
    pub(crate) fn take(&self) -> Option<FaultRecord> {
        // SAFETY: `host` is a live `FaultRecord`; the device writes it, so the load is
        // volatile.
        let flag = unsafe { std::ptr::addr_of!((*self.host).flag).read_volatile() };
        if flag == 0 {
            return None;
        }
        self.take_slow()
    }

    #[cold]
    fn take_slow(&self) -> Option<FaultRecord> {
        let _one_reader = self.reading.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: as in `take`; the writer set the flag after the other fields, and the
        // synchronisation before this call made its writes visible.
        let record = unsafe { self.host.read_volatile() };
        if record.flag == 0 {
            return None; // another thread took it
        }
        // Clear the flag first, then the claim: a fault that wins the claim afterwards
        // writes a whole record and its flag, which the next read sees.
        // SAFETY: as above.
        unsafe { std::ptr::addr_of_mut!((*self.host).flag).write_volatile(0) };
        // SAFETY: the claim word is this value's 4-byte allocation.
        let _ = unsafe { cudarc::driver::result::memset_d8_sync(self.claim_device, 0, 4) };
        Some(record)
    }
}

impl Drop for FaultRecordMemory {
    fn drop(&mut self) {
        // Kernels queued before may still write the record (a graph's replay, a launch on a
        // stream dropped without waiting): wait for all of the device's work first.
        let ctx = self.claim.context();
        if ctx
            .bind_to_thread()
            .and_then(|()| ctx.synchronize())
            .is_err()
        {
            // A context that cannot wait has faulted, and runs nothing more; or it cannot be
            // reached: keep the memory rather than free it under a kernel.
            return;
        }
        // SAFETY: allocated by `malloc_host` in `new`, freed once, after every kernel that
        // could write it has finished (above).
        let _ = unsafe { cudarc::driver::result::free_host(self.host as *mut std::ffi::c_void) };
    }
}
