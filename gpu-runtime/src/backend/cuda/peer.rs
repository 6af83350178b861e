//! Copies between two CUDA devices, and peer access between them.

use std::collections::HashSet;
use std::sync::Mutex;

use cudarc::driver::sys;

use super::CudaDevice;
use crate::error::{GpuError, Result};

/// Whether `a` can read and write `b`'s memory directly (NVLink or PCIe peer access).
pub(crate) fn can_access(a: &CudaDevice, b: &CudaDevice) -> bool {
    let (Ok(da), Ok(db)) = (
        cudarc::driver::result::device::get(a.ordinal as i32),
        cudarc::driver::result::device::get(b.ordinal as i32),
    ) else {
        return false;
    };
    let mut can = 0i32;
    // SAFETY: writes one int; both handles are devices of this driver.
    let ok = unsafe { sys::cuDeviceCanAccessPeer(&mut can, da, db) }.result();
    ok.is_ok() && can != 0
}

/// Enable peer access both ways between `a` and `b` once per process, where the devices
/// allow it; nothing otherwise (the driver then stages copies).
fn enable_once(a: &CudaDevice, b: &CudaDevice) {
    static ENABLED: Mutex<Option<HashSet<(usize, usize)>>> = Mutex::new(None);
    let mut enabled = ENABLED.lock().unwrap_or_else(|p| p.into_inner());
    let set = enabled.get_or_insert_with(HashSet::new);
    let key = (a.ordinal.min(b.ordinal), a.ordinal.max(b.ordinal));
    if !set.insert(key) {
        return;
    }
    for (from, to) in [(a, b), (b, a)] {
        if can_access(from, to) && from.ctx.bind_to_thread().is_ok() {
            // SAFETY: `from`'s context is current; `to`'s context is live. Already
            // enabled is not an error for us.
            let _ = unsafe { sys::cuCtxEnablePeerAccess(to.ctx.cu_ctx(), 0) };
        }
    }
}

/// Copy `bytes` bytes from `src` on device `s` to `dst` on device `d`.
///
/// # Safety
///
/// `src` and `dst` are live allocations of at least `bytes` bytes in the contexts of `s`
/// and `d`, and nothing else writes `dst` meanwhile.
pub(crate) unsafe fn copy(
    d: &CudaDevice,
    dst: u64,
    s: &CudaDevice,
    src: u64,
    bytes: usize,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    enable_once(d, s);
    d.ctx
        .bind_to_thread()
        .map_err(d.driver_error("peer copy"))?;
    // SAFETY: the caller's contract; `cuMemcpyPeer` is ordered after all work queued
    // before in both contexts and before all work queued after it.
    unsafe { sys::cuMemcpyPeer(dst, d.ctx.cu_ctx(), src, s.ctx.cu_ctx(), bytes) }
        .result()
        .map_err(|e| {
            if !super::fault::is_sticky(e.0) {
                return GpuError::driver("peer copy")(e);
            }
            // The fault belongs to the context that reports it from now on.
            let source_faulted = s
                .ctx
                .synchronize()
                .is_err_and(|x| super::fault::is_sticky(x.0));
            if source_faulted {
                s.fault(e)
            } else {
                d.fault(e)
            }
        })
}
