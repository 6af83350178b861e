//! Page-locked ("pinned") host buffers, and the asynchronous copies they allow.
//!
//! A copy between a `Vec` and the GPU waits for itself to finish. A copy between a
//! [`PinnedBuffer`] and a [`DeviceArray`] on a [`Stream`] returns at once, so copies on one
//! stream overlap kernels on another. The buffer remembers its pending copies: reading it
//! ([`PinnedBuffer::as_slice`], or uploading from it) waits for the copies that write it;
//! writing it ([`PinnedBuffer::as_mut_slice`], downloading into it) or dropping it waits
//! for every copy, so the host never sees or frees memory a transfer is using. Uploads
//! from one buffer do not wait for each other.

use std::sync::Mutex;

use crate::backend::cuda::handles::PinnedHost;
use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::array::DeviceArray;
use crate::host::device::Device;
use crate::host::device::DeviceInner;
use crate::host::event::Event;
use crate::host::stream::Stream;

/// A host buffer of `len` elements in page-locked memory (CuPy's
/// `cupyx.empty_pinned`, PyCUDA's `pagelocked_empty`). On the simulator, ordinary memory.
#[derive(Debug)]
pub struct PinnedBuffer<T: Element> {
    device: Device,
    ptr: *mut T,
    len: usize,
    /// The pinned allocation on a GPU, ordinary memory on the simulator (`ptr` points into
    /// it); kept to own it.
    _pinned: Option<PinnedHost>,
    _sim: Vec<T>,
    /// The copies in flight that read (`false`) or write (`true`) the buffer, each with
    /// the event after it.
    pending: Mutex<Vec<(Event, bool)>>,
}

// SAFETY: the buffer owns its memory, and every access goes through `&self`/`&mut self`
// after waiting for the copies that may touch it.
unsafe impl<T: Element> Send for PinnedBuffer<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: Element> Sync for PinnedBuffer<T> {}

impl Device {
    /// A pinned host buffer of `len` zeros, for asynchronous copies with this device.
    pub fn pinned_zeros<T: Element>(&self, len: usize) -> Result<PinnedBuffer<T>> {
        crate::host::graph::forbid("a page-locked allocation")?;
        let bytes =
            len.checked_mul(std::mem::size_of::<T>())
                .ok_or_else(|| GpuError::OutOfMemory {
                    device: "host (pinned)".to_owned(),
                    bytes: u64::MAX,
                })?;
        let (ptr, pinned, sim) = match &*self.inner {
            DeviceInner::Cuda(c) if bytes > 0 => {
                let p = PinnedHost::alloc(&c.ctx, bytes).map_err(c.allocation_error(
                    "host (pinned)",
                    bytes as u64,
                    "pinned allocation",
                ))?;
                // All-zero bytes are a valid value of every dtype.
                (p.ptr as *mut T, Some(p), Vec::new())
            }
            DeviceInner::Cuda(_) => (std::ptr::NonNull::dangling().as_ptr(), None, Vec::new()),
            DeviceInner::Sim(_) => {
                let mut v = crate::host::array::zeroed_vec::<T>(self, len).map_err(|_| {
                    GpuError::OutOfMemory {
                        device: "host".to_owned(),
                        bytes: bytes as u64,
                    }
                })?;
                (v.as_mut_ptr(), None, v)
            }
        };
        Ok(PinnedBuffer {
            device: self.clone(),
            ptr,
            len,
            _pinned: pinned,
            _sim: sim,
            pending: Mutex::new(Vec::new()),
        })
    }

    /// A pinned host buffer holding a copy of `data`.
    pub fn to_pinned<T: Element>(&self, data: &[T]) -> Result<PinnedBuffer<T>> {
        let mut b = self.pinned_zeros(data.len())?;
        b.as_mut_slice()?.copy_from_slice(data);
        Ok(b)
    }
}

impl<T: Element> PinnedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The contents, after the pending copies into the buffer have finished.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.settle_locked(false)?;
        // SAFETY: `ptr` holds `len` initialised elements, and no copy writes them now
        // (a new one needs `&mut self`).
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents, writable, after every pending copy from or into the buffer has
    /// finished.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait()?;
        // SAFETY: as above, and `&mut self` excludes every other access.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// Wait for every asynchronous copy that uses the buffer.
    pub fn wait(&self) -> Result<()> {
        self.settle_locked(true)
    }

    /// [`settle`](Self::settle) under the lock, then the `bool` and enum parts made valid before
    /// any slice is handed out. Only an invalid byte is written, and one exists only after
    /// a copy into the buffer, which needed `&mut self`: no slice handed out before it is
    /// alive, and none after it exists before this runs.
    fn settle_locked(&self, all: bool) -> Result<()> {
        let mut pending = self.lock();
        Self::settle(&mut pending, all)?;
        // SAFETY: the buffer's `len` elements; no copy writes the buffer now (the writes
        // were waited for), the lock is held, and a byte is written only where it is
        // invalid, which only a copy into the buffer leaves, after which no slice is alive
        // until this has run (see above).
        unsafe { crate::dtype::bytes::settle_raw::<T>(self.ptr.cast::<u8>(), self.len) };
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Event, bool)>> {
        self.pending.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Wait for the pending copies that write the buffer, or for all of them; forget
    /// those that have finished.
    fn settle(pending: &mut Vec<(Event, bool)>, all: bool) -> Result<()> {
        // Every wait first, whatever one of them reports: the buffer must not be used (or
        // freed) while a copy is still in flight.
        let mut first_error = None;
        for (event, writes) in pending.iter() {
            if all || *writes {
                if let Err(e) = event.wait_only() {
                    first_error.get_or_insert(e);
                }
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        // What was waited for above has finished; keep the reads still in flight.
        let mut kept = Vec::new();
        for (event, writes) in pending.drain(..) {
            let finished = all || writes || event.is_complete()?;
            if !finished {
                kept.push((event, writes));
            }
        }
        *pending = kept;
        Ok(())
    }

    /// Queue a copy that reads (`writes: false`) or writes the buffer on `stream`, with
    /// the pending list locked from the wait before it to the event after it, so no
    /// other thread's copy can slip between.
    fn queue_copy(
        &self,
        stream: &Stream,
        writes: bool,
        copy: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let mut pending = self.lock();
        Self::settle(&mut pending, writes)?;
        copy()?;
        match stream.record() {
            Ok(event) => {
                pending.push((event, writes));
                Ok(())
            }
            // Without an event the copy cannot be tracked: wait for it here instead.
            Err(e) => {
                stream.synchronize()?;
                Err(e)
            }
        }
    }

    fn check(
        &self,
        array_len: usize,
        array_device: &Device,
        stream: &Stream,
        what: &str,
    ) -> Result<()> {
        if array_len != self.len {
            return Err(GpuError::InvalidArgument(format!(
                "{what}: the array has {array_len} elements, the pinned buffer {}",
                self.len
            )));
        }
        for (d, name) in [
            (&self.device, "the pinned buffer"),
            (array_device, "the array"),
        ] {
            if *d != stream.device {
                return Err(GpuError::InvalidArgument(format!(
                    "{what}: {name} belongs to {}, the stream to {}",
                    d.describe(),
                    stream.device.describe()
                )));
            }
        }
        Ok(())
    }
}

impl<T: Element> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // A copy in flight still reads or writes the memory: wait for every one before
        // freeing it (the allocation is freed after this, when `_pinned` drops). A fault a
        // kernel recorded stays for the next synchronising call to report.
        let _ = Self::settle(&mut self.lock(), true);
    }
}

impl<T: Element> DeviceArray<T> {
    /// Queue a copy of `src` into this array on `stream` and return at once (after any
    /// pending copy *into* `src` has finished). `src` stays readable; writing it or
    /// dropping it waits for the copy.
    pub fn copy_from_pinned_async(&mut self, src: &PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        crate::host::graph::forbid("`copy_from_pinned_async`")?;
        stream.not_capturing("`copy_from_pinned_async`")?;
        src.check(self.len(), self.device(), stream, "copy_from_pinned_async")?;
        match (&stream.cuda, &*stream.device.inner) {
            (Some(s), DeviceInner::Cuda(c)) if src.len > 0 => {
                let dst = self.device_ptr().unwrap_or(0);
                let bytes = src.len * std::mem::size_of::<T>();
                let pinned = src._pinned.as_ref();
                src.queue_copy(stream, false, || {
                    let Some(pinned) = pinned else { return Ok(()) };
                    // SAFETY: `src` holds `len` elements of pinned memory that no copy is
                    // writing (settled before this) and that stay allocated and unwritten
                    // until the event recorded after this copy has passed (its drop and
                    // mutable accesses wait for it); `dst` is this array's allocation of
                    // the same length.
                    unsafe { pinned.copy_to_device(dst, bytes, s.raw) }
                        .map_err(c.driver_error("host-to-device copy"))
                })
            }
            (_, DeviceInner::Cuda(_)) => Ok(()),
            (_, DeviceInner::Sim(_)) => self.copy_from_host(src.as_slice()?),
        }
    }

    /// Queue a copy of this array into `dst` on `stream` and return at once (after every
    /// pending copy of `dst` has finished); reading `dst` waits for the copy.
    pub fn copy_to_pinned_async(&self, dst: &mut PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        crate::host::graph::forbid("`copy_to_pinned_async`")?;
        stream.not_capturing("`copy_to_pinned_async`")?;
        dst.check(self.len(), self.device(), stream, "copy_to_pinned_async")?;
        match (&stream.cuda, &*stream.device.inner) {
            (Some(s), DeviceInner::Cuda(c)) if dst.len > 0 => {
                let src = self.device_ptr().unwrap_or(0);
                let bytes = dst.len * std::mem::size_of::<T>();
                let pinned = dst._pinned.as_ref();
                dst.queue_copy(stream, true, || {
                    let Some(pinned) = pinned else { return Ok(()) };
                    // SAFETY: as above, in the other direction: no copy uses the buffer
                    // now (all settled), `&mut dst` excludes host access until this
                    // returns, and every later access or the free waits for the event
                    // recorded after this copy.
                    unsafe { pinned.copy_from_device(src, bytes, s.raw) }
                        .map_err(c.driver_error("device-to-host copy"))
                })
            }
            (_, DeviceInner::Cuda(_)) => Ok(()),
            (_, DeviceInner::Sim(_)) => self.copy_to_host(dst.as_mut_slice()?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asynchronous_copies_round_trip_on_the_simulator() {
        let dev = Device::simulator();
        let stream = dev.new_stream().unwrap();
        let data: Vec<f64> = (0..1000).map(|i| i as f64 * 0.5 - 7.0).collect();
        let src = dev.to_pinned(&data).unwrap();
        let mut a = dev.zeros::<f64>(1000).unwrap();
        a.copy_from_pinned_async(&src, &stream).unwrap();
        let mut back = dev.pinned_zeros::<f64>(1000).unwrap();
        a.copy_to_pinned_async(&mut back, &stream).unwrap();
        assert_eq!(back.as_slice().unwrap(), &data[..]);
        let mut short = dev.pinned_zeros::<f64>(999).unwrap();
        assert!(matches!(
            a.copy_to_pinned_async(&mut short, &stream),
            Err(GpuError::InvalidArgument(_))
        ));
    }
}
