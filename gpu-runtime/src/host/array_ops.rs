//! Whole-array operations that stay on the device: copies of an array, device-to-device
//! copies, filling with a value; and row access for 2-D arrays.
//!
//! Each is queued on the device's stream, after the work queued there before it, as the
//! host copies are; none waits for the device.

use crate::backend::cuda::buffer::{self, CudaBuffer};
use crate::backend::sim::memory::SimBuffer;
use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::array::{reserve, Storage};
use crate::host::array::{DeviceArray, DeviceArray2, DeviceArray3};
use crate::host::device::{Device, DeviceInner};
use crate::host::view::DeviceSlice;

impl<T: Element> DeviceArray<T> {
    /// A new array on the same device with the same elements (a device-to-device copy;
    /// CuPy's `a.copy()`). `Clone` is not implemented because a copy can fail.
    pub fn try_clone(&self) -> Result<DeviceArray<T>> {
        crate::host::graph::forbid("`try_clone`")?;
        let storage = match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(b), DeviceInner::Cuda(c)) => {
                let slice =
                    buffer::clone_dtod(&c.stream, b.slice()).map_err(c.allocation_error(
                        self.device.name(),
                        (self.len * std::mem::size_of::<T>()) as u64,
                        "device-to-device copy",
                    ))?;
                Storage::Cuda(CudaBuffer::new(slice))
            }
            (Storage::Sim(v), _) => {
                let mut copy = reserve(&self.device, self.len)?;
                v.read(|v| copy.extend_from_slice(v));
                Storage::Sim(SimBuffer::new(copy))
            }
            _ => unreachable!("an array's storage always matches its device"),
        };
        Ok(DeviceArray {
            device: self.device.clone(),
            storage,
            len: self.len,
        })
    }

    /// Overwrite this array with `src`, which must have the same length. On one device it
    /// is a device-to-device copy queued on the device's stream. Between two CUDA devices
    /// it is a peer copy (`cuMemcpyPeer`: direct over NVLink or PCIe where the devices can
    /// reach each other's memory, which is enabled for the pair at its first copy; staged
    /// by the driver otherwise), ordered after the work queued before on both devices and
    /// before the work queued after. Between a GPU and the simulator, or two simulated
    /// devices, it goes through the host.
    pub fn copy_from(&mut self, src: &DeviceArray<T>) -> Result<()> {
        crate::host::graph::forbid("`copy_from`")?;
        if src.device != self.device {
            if src.len != self.len {
                return Err(GpuError::InvalidArgument(format!(
                    "copy_from: the source has {} elements but this array has {}",
                    src.len, self.len
                )));
            }
            return self.copy_from_other_device(src);
        }
        if src.len != self.len {
            return Err(GpuError::InvalidArgument(format!(
                "copy_from: the source has {} elements but this array has {}",
                src.len, self.len
            )));
        }
        match (&mut self.storage, &src.storage, &*self.device.inner) {
            (Storage::Cuda(dst), Storage::Cuda(s), DeviceInner::Cuda(c)) => c
                .stream
                .memcpy_dtod(s.slice(), dst.slice_mut())
                .map_err(c.driver_error("device-to-device copy")),
            (Storage::Sim(dst), Storage::Sim(s), _) => {
                dst.copy_from(s);
                Ok(())
            }
            _ => unreachable!("arrays of one device have the same storage"),
        }
    }

    /// A new copy of this array on `device` (the same device: a device-to-device copy;
    /// [`DeviceArray::copy_from`] fills an existing array instead).
    pub fn to_device(&self, device: &Device) -> Result<DeviceArray<T>> {
        if device == &self.device {
            return self.try_clone();
        }
        let mut out = device.zeros::<T>(self.len)?;
        out.copy_from(self)?;
        Ok(out)
    }

    fn copy_from_other_device(&mut self, src: &DeviceArray<T>) -> Result<()> {
        match (
            &mut self.storage,
            &src.storage,
            &*self.device.inner,
            &*src.device.inner,
        ) {
            (Storage::Cuda(dst), Storage::Cuda(s), DeviceInner::Cuda(d), DeviceInner::Cuda(sd)) => {
                let bytes = self.len * std::mem::size_of::<T>();
                // SAFETY: both are live allocations of `bytes` bytes in their contexts
                // (the lengths are equal); the copy is ordered after the work queued on
                // both devices and before the work queued later (so before the frees),
                // and `&mut self` keeps our other writers of `dst` out meanwhile.
                unsafe { crate::backend::cuda::peer::copy(d, dst.ptr, sd, s.ptr, bytes) }
            }
            _ => {
                let host = src.to_host()?;
                self.copy_from_host(&host)
            }
        }
    }

    /// Set every element to `value` (Numba's and CuPy's `fill`).
    pub fn fill(&mut self, value: T) -> Result<()> {
        crate::host::graph::forbid("`fill`")?;
        // The driver's memsets write 1, 2 or 4 bytes with pitches of 4: a struct of another
        // size is copied from the host instead.
        if matches!(T::ELEM, crate::dtype::ElemKind::Struct(_))
            && matches!(&*self.device.inner, DeviceInner::Cuda(_))
        {
            let host = vec![value; self.len];
            return self.copy_from_host(&host);
        }
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda(b), DeviceInner::Cuda(c)) => {
                let value = [value];
                let bytes = crate::dtype::bytes::bytes_of(&value);
                b.fill_with(c, self.len, bytes)
            }
            (Storage::Sim(v), _) => {
                v.write(|v| v.fill(value));
                Ok(())
            }
            _ => unreachable!("an array's storage always matches its device"),
        }
    }
}

/// The copies every array kind has, for the two- and three-dimensional arrays: `to_*`
/// makes a new array, `copy_*` fills an existing one.
macro_rules! shaped_copies {
    ($($array:ident),*) => {$(
        impl<T: Element> $array<T> {
            /// Copy the array into `dst`, row-major, of the same length.
            pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
                self.flat().copy_to_host(dst)
            }

            /// Overwrite the array with `src`, of the same shape, on any device.
            pub fn copy_from(&mut self, src: &$array<T>) -> Result<()> {
                if self.shape() != src.shape() {
                    return Err(GpuError::InvalidArgument(format!(
                        "copy_from: an array of shape {:?} into one of shape {:?}",
                        src.shape(),
                        self.shape()
                    )));
                }
                self.flat_storage_mut().copy_from(src.flat())
            }

            /// A new copy of this array on `device`.
            pub fn to_device(&self, device: &Device) -> Result<$array<T>> {
                $array::from_parts(self.flat().to_device(device)?, self.shape())
            }

            /// A new array with the same shape and elements.
            pub fn try_clone(&self) -> Result<$array<T>> {
                $array::from_parts(self.flat().try_clone()?, self.shape())
            }
        }
    )*};
}

shaped_copies!(DeviceArray2, DeviceArray3);

impl<T: Element> DeviceArray2<T> {
    /// Set every element to `value`.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.flat_storage_mut().fill(value)
    }

    /// Row `r` as a view, to pass where a kernel takes `&[T]` or to copy to the host; an
    /// error past the last row.
    pub fn row(&self, r: usize) -> Result<DeviceSlice<'_, T>> {
        if r >= self.rows() {
            return Err(GpuError::InvalidArgument(format!(
                "row {r} of an array of {} rows",
                self.rows()
            )));
        }
        let c = self.cols();
        self.flat().slice(r * c..(r + 1) * c)
    }

    /// The elements as one `Vec` per row.
    pub fn to_host_rows(&self) -> Result<Vec<Vec<T>>> {
        let flat = self.to_host()?;
        let mut rows = Vec::new();
        // Reserved first: `rows x 0` holds no elements, however many rows it has.
        rows.try_reserve_exact(self.rows())
            .map_err(|_| GpuError::OutOfMemory {
                device: "the host".to_owned(),
                bytes: (self.rows() as u64).saturating_mul(std::mem::size_of::<Vec<T>>() as u64),
            })?;
        match self.cols() {
            0 => rows.resize(self.rows(), Vec::new()),
            c => rows.extend(flat.chunks(c).map(<[T]>::to_vec)),
        }
        Ok(rows)
    }
}

impl<T: Element> DeviceArray3<T> {
    /// Set every element to `value`.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.flat_storage_mut().fill(value)
    }
}
