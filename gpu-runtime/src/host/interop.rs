//! Handing device memory to and from other code without copying it: cudarc's
//! `CudaSlice` (and so any crate built on cudarc), and raw device pointers.
//!
//! Ordering is by streams. Launches and copies of this crate run on the device's default
//! stream and on streams from [`Device::new_stream`], which all wait for one another.
//! cudarc's event tracking is on for the device's context, so cudarc orders a buffer's
//! uses on cudarc streams of the user's (`ctx.new_stream()`), and the free of an array
//! waits for them: handing buffers out cannot lead to a use after free, with one exception
//! that is cudarc's: a graph made with cudarc's own capture (`CudaStream::begin_capture` on
//! a stream of [`Device::cuda_context`]) does not keep the buffers its nodes use, so
//! replaying it after an array it copied into has dropped writes freed memory; record
//! graphs with [`Device::capture`](crate::Device::capture), which keeps them. What cudarc cannot
//! see is this crate's own launches: between a kernel of ours that writes an array and
//! cudarc work on another stream that reads it (or the reverse), synchronise
//! ([`Device::synchronize`], or an [`Event`](crate::Event)); otherwise the values read
//! are unspecified, as in any data race on the GPU. [`Device::cuda_stream`] gives cudarc
//! the default stream itself, which needs no synchronisation.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, CudaViewMut};

use crate::backend::cuda::buffer::CudaBuffer;
use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::array::DeviceArray;
use crate::host::array::Storage;
use crate::host::device::Device;
use crate::host::device::DeviceInner;

impl Device {
    /// The cudarc context of a CUDA device (`None` on the simulator), for allocating or
    /// loading with cudarc directly. Its event tracking is on (see the module's notes on
    /// ordering).
    pub fn cuda_context(&self) -> Option<Arc<CudaContext>> {
        match &*self.inner {
            DeviceInner::Cuda(c) => Some(c.ctx.clone()),
            DeviceInner::Sim(_) => None,
        }
    }

    /// The device's default stream as a cudarc stream (`None` on the simulator): buffers
    /// cudarc allocates or fills on it are ordered with this crate's launches.
    pub fn cuda_stream(&self) -> Option<Arc<CudaStream>> {
        match &*self.inner {
            DeviceInner::Cuda(c) => Some(c.stream.clone()),
            DeviceInner::Sim(_) => None,
        }
    }
}

impl<T: Element> DeviceArray<T> {
    /// Take a cudarc buffer as an array of this device, without copying. Errors on the
    /// simulator and when the buffer belongs to another device's context.
    ///
    /// Waits for the work queued on the buffer's own stream, then moves the buffer onto
    /// the device's default stream, so that freeing it (when the array drops) is ordered
    /// after every launch of this crate that uses it.
    pub fn from_cuda_slice(device: &Device, slice: CudaSlice<T>) -> Result<DeviceArray<T>> {
        crate::host::graph::forbid("`from_cuda_slice`")?;
        match &*device.inner {
            DeviceInner::Cuda(c) if slice.context().cu_ctx() == c.ctx.cu_ctx() => {
                let len = slice.len();
                let slice = if std::sync::Arc::ptr_eq(slice.stream(), &c.stream) {
                    slice
                } else {
                    slice
                        .stream()
                        .synchronize()
                        .map_err(c.driver_error("handing over a CudaSlice"))?;
                    let ptr = slice.leak();
                    // SAFETY: `ptr` is the allocation of `len` elements that `slice` owned
                    // and gave up just now; its stream has finished with it.
                    unsafe { c.stream.upgrade_device_ptr::<T>(ptr, len) }
                };
                Ok(DeviceArray {
                    device: device.clone(),
                    storage: Storage::Cuda(CudaBuffer::new(slice)),
                    len,
                })
            }
            DeviceInner::Cuda(_) => Err(GpuError::InvalidArgument(format!(
                "the CudaSlice belongs to CUDA device {}, not to {}",
                slice.context().ordinal(),
                device.describe()
            ))),
            DeviceInner::Sim(_) => Err(GpuError::InvalidArgument(
                "a CudaSlice is GPU memory: it cannot become an array of the simulator".to_owned(),
            )),
        }
    }

    /// The array as a cudarc buffer, without copying. Refused on the simulator, and while
    /// a [`Graph`](crate::Graph) that uses the array is alive (it keeps the memory for its
    /// replays); the error gives the array back ([`NotHandedOver::into_array`]) and
    /// converts to a [`GpuError`] for `?`.
    pub fn into_cuda_slice(self) -> std::result::Result<CudaSlice<T>, NotHandedOver<T>> {
        let DeviceArray {
            device,
            storage,
            len,
        } = self;
        let (storage, why) = match storage {
            Storage::Cuda(b) => match b.into_slice() {
                Ok(slice) => return Ok(slice),
                Err(b) => (Storage::Cuda(b), Refusal::HeldByGraph),
            },
            sim @ Storage::Sim(_) => (sim, Refusal::Simulator),
        };
        Err(NotHandedOver {
            array: DeviceArray {
                device,
                storage,
                len,
            },
            why,
        })
    }

    /// The cudarc buffer behind the array (`None` on the simulator), to pass to cudarc
    /// functions that take `&CudaSlice<T>`.
    pub fn as_cuda_slice(&self) -> Option<&CudaSlice<T>> {
        match &self.storage {
            Storage::Cuda(b) => Some(b.slice()),
            Storage::Sim(_) => None,
        }
    }

    /// A writable cudarc view of the array (`None` on the simulator), for cudarc functions
    /// that write device memory. A view, not `&mut CudaSlice`: replacing the buffer behind
    /// the array would leave the array pointing at freed memory.
    pub fn as_cuda_view_mut(&mut self) -> Option<CudaViewMut<'_, T>> {
        match &mut self.storage {
            Storage::Cuda(b) => Some(b.slice_mut().as_view_mut()),
            Storage::Sim(_) => None,
        }
    }

    /// Take ownership of `len` elements at device address `ptr` (from `cuMemAlloc`, another
    /// library, or [`DeviceArray::into_raw`]) as an array of `device`; it is freed with
    /// `cuMemFreeAsync` when dropped.
    ///
    /// # Safety
    ///
    /// `ptr` must be an allocation of at least `len * size_of::<T>()` bytes made in
    /// `device`'s context, freeable with `cuMemFree`/`cuMemFreeAsync`, owned by nobody else
    /// from now on, and holding valid values of `T` wherever the array will be read.
    pub unsafe fn from_raw(device: &Device, ptr: u64, len: usize) -> Result<DeviceArray<T>> {
        match &*device.inner {
            DeviceInner::Cuda(c) => {
                // SAFETY: the caller's contract is cudarc's for `upgrade_device_ptr`.
                let slice = unsafe { c.stream.upgrade_device_ptr::<T>(ptr, len) };
                DeviceArray::from_cuda_slice(device, slice)
            }
            DeviceInner::Sim(_) => Err(GpuError::InvalidArgument(
                "a raw device pointer cannot become an array of the simulator".to_owned(),
            )),
        }
    }

    /// Give up the array's memory, returning its device address and length; the caller
    /// frees it (`cuMemFree`) or hands it back through [`DeviceArray::from_raw`]. Refused
    /// as [`DeviceArray::into_cuda_slice`] is, the error giving the array back.
    pub fn into_raw(self) -> std::result::Result<(u64, usize), NotHandedOver<T>> {
        let len = self.len;
        self.into_cuda_slice().map(|s| (s.leak(), len))
    }
}

/// The error of [`DeviceArray::into_cuda_slice`] and [`DeviceArray::into_raw`]: the array
/// lives on the simulator, which has no CUDA memory, or a [`Graph`](crate::Graph) that
/// uses it is alive. It holds the array, unchanged, and converts to
/// [`GpuError::InvalidArgument`], so `?` works on the call.
pub struct NotHandedOver<T: Element> {
    array: DeviceArray<T>,
    why: Refusal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    Simulator,
    HeldByGraph,
}

impl<T: Element> NotHandedOver<T> {
    /// The array, given back.
    pub fn into_array(self) -> DeviceArray<T> {
        self.array
    }

    /// Whether the refusal is the simulator's (else a live graph holds the array).
    pub fn on_simulator(&self) -> bool {
        self.why == Refusal::Simulator
    }
}

impl<T: Element> std::fmt::Debug for NotHandedOver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NotHandedOver({:?}, {:?})", self.array, self.why)
    }
}

impl<T: Element> std::fmt::Display for NotHandedOver<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.why {
            Refusal::Simulator => write!(
                f,
                "{:?} has no CUDA memory to hand over (it lives on the simulator)",
                self.array
            ),
            Refusal::HeldByGraph => write!(
                f,
                "{:?} cannot hand over its memory while a graph that uses it is alive (the \
                 graph keeps it for its replays); drop the graph first",
                self.array
            ),
        }
    }
}

impl<T: Element> std::error::Error for NotHandedOver<T> {}

impl<T: Element> From<NotHandedOver<T>> for GpuError {
    fn from(e: NotHandedOver<T>) -> GpuError {
        GpuError::InvalidArgument(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulator_has_no_cuda_buffers_and_says_so() {
        let dev = Device::simulator();
        assert!(dev.cuda_context().is_none() && dev.cuda_stream().is_none());
        let a = dev.to_device(&[1.0f32, 2.0]).unwrap();
        assert!(a.as_cuda_slice().is_none());
        let a = a.into_cuda_slice().unwrap_err().into_array();
        let e: GpuError = a.into_raw().unwrap_err().into();
        assert!(e.to_string().contains("no CUDA memory"), "{e}");
        let a = dev.to_device(&[1.0f32, 2.0]).unwrap();
        assert_eq!(a.to_host().unwrap(), [1.0, 2.0]);
        // SAFETY: the simulator refuses before using the pointer.
        let r = unsafe { DeviceArray::<f32>::from_raw(&dev, 0x1000, 4) };
        assert!(matches!(r, Err(GpuError::InvalidArgument(_))));
    }
}
