//! Device memory owned by an array: a cudarc buffer whose address is read once, and which
//! is freed in its context on whatever thread drops it.

use cudarc::driver::{CudaSlice, DevicePtr};

/// A device allocation of an array.
pub(crate) struct CudaBuffer<T> {
    /// `None` only after [`CudaBuffer::into_slice`] took it.
    slice: Option<CudaSlice<T>>,
    /// The allocation's device address, read once so a launch need not ask.
    pub ptr: u64,
}

impl<T> CudaBuffer<T> {
    pub(crate) fn new(slice: CudaSlice<T>) -> CudaBuffer<T> {
        let ptr = {
            let (ptr, _record_read) = slice.device_ptr(slice.stream());
            ptr
        };
        CudaBuffer {
            slice: Some(slice),
            ptr,
        }
    }

    /// The cudarc buffer.
    pub(crate) fn slice(&self) -> &CudaSlice<T> {
        match &self.slice {
            Some(s) => s,
            None => unreachable!("a CudaBuffer keeps its slice until it is consumed"),
        }
    }

    /// The cudarc buffer, writable.
    pub(crate) fn slice_mut(&mut self) -> &mut CudaSlice<T> {
        match &mut self.slice {
            Some(s) => s,
            None => unreachable!("a CudaBuffer keeps its slice until it is consumed"),
        }
    }

    /// The cudarc buffer, given up: the caller owns the memory now.
    pub(crate) fn into_slice(mut self) -> CudaSlice<T> {
        match self.slice.take() {
            Some(s) => s,
            None => unreachable!("a CudaBuffer keeps its slice until it is consumed"),
        }
    }
}

impl<T> Drop for CudaBuffer<T> {
    fn drop(&mut self) {
        if let Some(slice) = self.slice.take() {
            // cudarc frees in whatever context is current on this thread: on a thread that
            // never used the device there is none, and the free would fail silently (the
            // memory would leak). Bind ours first.
            let _ = slice.context().bind_to_thread();
            drop(slice);
        }
    }
}

/// Set each of the `len` elements of `size` bytes at `ptr` to the value whose bytes are
/// the low `size` bytes of `bits`, queued on `stream` (elements of 1, 2 and 4 bytes by the
/// driver's memset of that width; of 8 bytes by two 4-byte memsets with an 8-byte pitch,
/// one per half).
///
/// # Safety
///
/// `ptr..ptr + len * size` must be device memory of the current context, live until the
/// memset has run on `stream`.
pub(crate) unsafe fn fill(
    ptr: u64,
    len: usize,
    size: usize,
    bits: u64,
    stream: cudarc::driver::sys::CUstream,
) -> Result<(), cudarc::driver::DriverError> {
    use cudarc::driver::sys;
    if len == 0 {
        return Ok(());
    }
    // SAFETY: the caller's contract covers every byte written, and each call writes
    // exactly the array's `len * size` bytes (for 8-byte elements, 4 of each 8 per call).
    let status = unsafe {
        match size {
            1 => sys::cuMemsetD8Async(ptr, bits as u8, len, stream),
            2 => sys::cuMemsetD16Async(ptr, bits as u16, len, stream),
            4 => sys::cuMemsetD32Async(ptr, bits as u32, len, stream),
            8 => match sys::cuMemsetD2D32Async(ptr, 8, bits as u32, 1, len, stream) {
                sys::CUresult::CUDA_SUCCESS => {
                    sys::cuMemsetD2D32Async(ptr + 4, 8, (bits >> 32) as u32, 1, len, stream)
                }
                e => e,
            },
            _ => unreachable!("every dtype is 1, 2, 4 or 8 bytes"),
        }
    };
    status.result()
}
