//! Device memory owned by an array: a cudarc buffer whose address is read once, and which
//! is freed in its context on whatever thread drops it. And the copies between it and the
//! host, made as copies of bytes: cudarc's typed copies need its `DeviceRepr`, which a
//! dtype from another crate (`num_complex::Complex32`) cannot implement.

use std::cell::UnsafeCell;
use std::sync::Arc;

use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DriverError,
};

use super::CudaDevice;
use crate::error::GpuError;

use crate::dtype::bytes::{bytes_of, bytes_of_mut, settle_invalid_parts};
use crate::dtype::Element;
use crate::keep_alive::KeepAlive;

/// A device allocation of an array.
///
/// The cudarc buffer sits behind an `Arc` so that a recorded graph that uses the array can
/// keep the allocation alive ([`KeepAlive`]); only this buffer ever reaches the cudarc
/// buffer through it, so `&self` and `&mut self` here are the only borrows of it.
pub(crate) struct CudaBuffer<T> {
    cell: Arc<SliceCell<T>>,
    /// The allocation's device address, read once so a launch need not ask.
    pub ptr: u64,
}

/// The cudarc buffer of one allocation, freed (in its context) with its last owner.
pub(crate) struct SliceCell<T>(UnsafeCell<Option<CudaSlice<T>>>);

// SAFETY: the cell is reached only by the one `CudaBuffer` that made it (with `&self` or
// `&mut self` of that buffer, so Rust's borrow rules hold for it); every other owner is a
// graph's type-erased `Arc`, which never dereferences it and only drops it. Dropping a
// `CudaSlice` on another thread is sound (it is `Send`; the drop binds its context).
unsafe impl<T: Send> Sync for SliceCell<T> {}

impl<T> Drop for SliceCell<T> {
    fn drop(&mut self) {
        if let Some(slice) = self.0.get_mut().take() {
            // cudarc frees in whatever context is current on this thread: on a thread that
            // never used the device there is none, and the free would fail silently (the
            // memory would leak). Bind ours first.
            let _ = slice.context().bind_to_thread();
            drop(slice);
        }
    }
}

impl<T: Send + 'static> CudaBuffer<T> {
    pub(crate) fn new(slice: CudaSlice<T>) -> CudaBuffer<T> {
        let ptr = {
            let (ptr, _record_read) = slice.device_ptr(slice.stream());
            ptr
        };
        CudaBuffer {
            cell: Arc::new(SliceCell(UnsafeCell::new(Some(slice)))),
            ptr,
        }
    }

    /// The cudarc buffer.
    pub(crate) fn slice(&self) -> &CudaSlice<T> {
        // SAFETY: only this buffer dereferences the cell (see `SliceCell`), and `&self`
        // excludes a `&mut` from `slice_mut` for this borrow.
        match unsafe { &*self.cell.0.get() } {
            Some(s) => s,
            None => unreachable!("a CudaBuffer keeps its slice until it is consumed"),
        }
    }

    /// The cudarc buffer, writable.
    pub(crate) fn slice_mut(&mut self) -> &mut CudaSlice<T> {
        // SAFETY: as in `slice`; `&mut self` makes this the only borrow.
        match unsafe { &mut *self.cell.0.get() } {
            Some(s) => s,
            None => unreachable!("a CudaBuffer keeps its slice until it is consumed"),
        }
    }

    /// Set each of its `len` elements to `value` (one element's bytes), queued on `dev`'s
    /// default stream; `len` must be the buffer's length.
    pub(crate) fn fill_with(
        &mut self,
        dev: &CudaDevice,
        len: usize,
        value: &[u8],
    ) -> Result<(), GpuError> {
        dev.ctx.bind_to_thread().map_err(dev.driver_error("fill"))?;
        // The pointer through cudarc, so the memsets are ordered after the buffer's
        // pending reads and writes on other cudarc streams, and later users wait for
        // them (the guard records the write when dropped, after both memsets).
        let (ptr, _write) = self.slice_mut().device_ptr_mut(&dev.stream);
        // SAFETY: `ptr` is this buffer's allocation of `len` elements in the device's
        // context (bound above), borrowed mutably for this call; the memset is queued
        // on the device's stream, which orders the allocation's free after it.
        unsafe { fill(ptr, len, value, dev.stream.cu_stream()) }.map_err(dev.driver_error("fill"))
    }

    /// The allocation's owner, for a graph that records work on it.
    pub(crate) fn owner(&self) -> &dyn KeepAlive {
        &self.cell
    }

    /// The cudarc buffer, given up: the caller owns the memory now. Refused (the buffer is
    /// given back) while a graph still holds the allocation.
    pub(crate) fn into_slice(self) -> Result<CudaSlice<T>, CudaBuffer<T>> {
        match Arc::try_unwrap(self.cell) {
            // Taken out, the cell drops empty: nothing is freed.
            Ok(mut cell) => match cell.0.get_mut().take() {
                Some(s) => Ok(s),
                None => unreachable!("a CudaBuffer keeps its slice until it is consumed"),
            },
            Err(cell) => Err(CudaBuffer {
                cell,
                ptr: self.ptr,
            }),
        }
    }
}

/// Copy the device elements `src` into `dst` and wait for the copy on `stream`, leaving
/// only valid values in `dst` (see [`settle_invalid_parts`]).
pub(crate) fn dtoh_sync<T: Element>(
    stream: &Arc<CudaStream>,
    src: &CudaView<'_, T>,
    dst: &mut [T],
) -> Result<(), DriverError> {
    if src.len() != dst.len() {
        return Err(length_mismatch());
    }
    let bytes = bytes_of_mut(dst);
    // SAFETY: the view's own bytes, as `u8`s.
    let raw = unsafe { src.transmute::<u8>(bytes.len()) }.ok_or_else(length_mismatch)?;
    let copied = stream
        .memcpy_dtoh(&raw, &mut *bytes)
        .and_then(|()| stream.synchronize());
    // Whatever the copy reports, `dst` holds valid values afterwards.
    settle_invalid_parts::<T>(bytes);
    copied
}

/// The error of a copy whose sides differ in length (the callers check lengths first).
fn length_mismatch() -> DriverError {
    DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// The bytes of `len` elements of `T`; past `usize`, the driver's out-of-memory error.
fn byte_len<T>(len: usize) -> Result<usize, DriverError> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or(DriverError(
        cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY,
    ))
}

/// A new allocation of `len` zeroed elements, queued on `stream`.
pub(crate) fn alloc_zeros<T: Element>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<CudaSlice<T>, DriverError> {
    let raw = stream.alloc_zeros::<u8>(byte_len::<T>(len)?)?;
    // SAFETY: `leak` gives up the allocation of `bytes` bytes without freeing it, and the
    // new slice takes it over on the same stream: `len` elements of `T`, all zero bytes,
    // which is a value of every dtype (device allocations are aligned to 256 bytes).
    Ok(unsafe { stream.upgrade_device_ptr::<T>(raw.leak(), len) })
}

/// A new allocation of `len` elements whose bytes are whatever the memory held: for
/// arrays the device writes before anything reads them (a reduction's partial results).
///
/// # Safety
///
/// The bytes need not be valid `T`s (a `bool` other than 0 or 1, which cudarc's own copies
/// would hand to safe code as it is): every element must be written before anything reads
/// it.
pub(crate) unsafe fn alloc_scratch<T: Element>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<CudaSlice<T>, DriverError> {
    let bytes = byte_len::<T>(len)?;
    // SAFETY: the bytes are left as the memory held them; the caller writes every
    // element before anything reads one.
    let raw = unsafe { stream.alloc::<u8>(bytes) }?;
    // SAFETY: as in `alloc_zeros`.
    Ok(unsafe { stream.upgrade_device_ptr::<T>(raw.leak(), len) })
}

/// A new allocation holding a copy of `host`, queued on `stream`.
pub(crate) fn clone_htod<T: Element>(
    stream: &Arc<CudaStream>,
    host: &[T],
) -> Result<CudaSlice<T>, DriverError> {
    // SAFETY: the bytes are uninitialised until the copy below, queued on the same stream
    // before the slice is handed to anyone, overwrites every one of them.
    let raw = unsafe { stream.alloc::<u8>(std::mem::size_of_val(host)) }?;
    // SAFETY: as in `alloc_zeros`.
    let mut slice = unsafe { stream.upgrade_device_ptr::<T>(raw.leak(), host.len()) };
    htod(stream, host, &mut slice.as_view_mut())?;
    Ok(slice)
}

/// A new allocation holding a copy of the device elements `src`, queued on `stream`.
pub(crate) fn clone_dtod<T: Element>(
    stream: &Arc<CudaStream>,
    src: &CudaSlice<T>,
) -> Result<CudaSlice<T>, DriverError> {
    // SAFETY: the bytes are uninitialised until the copy below, queued on the same stream
    // before the slice is handed to anyone, overwrites every one of them.
    let raw = unsafe { stream.alloc::<u8>(src.num_bytes()) }?;
    // SAFETY: as in `alloc_zeros`.
    let mut slice = unsafe { stream.upgrade_device_ptr::<T>(raw.leak(), src.len()) };
    stream.memcpy_dtod(src, &mut slice)?;
    Ok(slice)
}

/// Copy `src` into the device elements `dst` (the same length), queued on `stream`.
pub(crate) fn htod<T: Element>(
    stream: &Arc<CudaStream>,
    src: &[T],
    dst: &mut CudaViewMut<'_, T>,
) -> Result<(), DriverError> {
    if src.len() != dst.len() {
        return Err(length_mismatch());
    }
    let bytes = bytes_of(src);
    // SAFETY: the view's own bytes, as `u8`s (any byte is one); what is copied in is a
    // `T` for each element.
    let mut raw = unsafe { dst.transmute_mut::<u8>(bytes.len()) }.ok_or_else(length_mismatch)?;
    stream.memcpy_htod(bytes, &mut raw)
}

/// Set each of the `len` elements of `value.len()` bytes at `ptr` to `value`, queued on
/// `stream` (elements of 1, 2 and 4 bytes by the driver's memset of that width; of 8 and
/// 16 bytes by one 4-byte memset per 4 bytes of the element, pitched by its size).
///
/// # Safety
///
/// `ptr..ptr + len * value.len()` must be device memory of the current context, live
/// until the memset has run on `stream`.
pub(crate) unsafe fn fill(
    ptr: u64,
    len: usize,
    value: &[u8],
    stream: cudarc::driver::sys::CUstream,
) -> Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    if len == 0 {
        return Ok(());
    }
    let word = |k: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&value[4 * k..4 * k + 4]);
        u32::from_ne_bytes(w)
    };
    // SAFETY: the caller's contract covers every byte written, and each call writes
    // exactly the array's `len * size` bytes (for 8- and 16-byte elements, 4 of each
    // element per call).
    unsafe {
        match value.len() {
            1 => sys::cuMemsetD8Async(ptr, value[0], len, stream).result(),
            2 => sys::cuMemsetD16Async(ptr, u16::from_ne_bytes([value[0], value[1]]), len, stream)
                .result(),
            4 => sys::cuMemsetD32Async(ptr, word(0), len, stream).result(),
            size => {
                for k in 0..size / 4 {
                    let at = ptr + 4 * k as u64;
                    sys::cuMemsetD2D32Async(at, size, word(k), 1, len, stream).result()?;
                }
                Ok(())
            }
        }
    }
}
