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
