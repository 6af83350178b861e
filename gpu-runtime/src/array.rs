//! Arrays in device memory.

use std::fmt;

use cudarc::driver::{CudaSlice, DevicePtr};

use crate::device::{Device, DeviceInner};
use crate::dtype::Dtype;
use crate::error::{GpuError, Result};

pub(crate) enum Storage<T> {
    /// Device memory; `ptr` is the slice's address, read once so a launch need not ask.
    Cuda {
        slice: CudaSlice<T>,
        ptr: u64,
    },
    Sim(Vec<T>),
}

/// A one-dimensional array of `T` on a [`Device`]: the argument type of a kernel's `&[T]`
/// and `&mut [T]` parameters.
pub struct DeviceArray<T: Dtype> {
    pub(crate) device: Device,
    pub(crate) storage: Storage<T>,
    pub(crate) len: usize,
}

impl<T: Dtype> fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceArray<{}>[{}] on {}",
            T::KIND,
            self.len,
            self.device.describe()
        )
    }
}

impl<T: Dtype> DeviceArray<T> {
    pub(crate) fn from_host(device: &Device, host: &[T]) -> Result<Self> {
        let storage = match &*device.inner {
            DeviceInner::Cuda(c) => {
                let slice = c
                    .stream
                    .clone_htod(host)
                    .map_err(GpuError::driver("host-to-device copy"))?;
                cuda_storage(c, slice)
            }
            DeviceInner::Sim => Storage::Sim(host.to_vec()),
        };
        Ok(DeviceArray {
            device: device.clone(),
            storage,
            len: host.len(),
        })
    }

    pub(crate) fn zeros(device: &Device, len: usize) -> Result<Self> {
        let storage = match &*device.inner {
            DeviceInner::Cuda(c) => {
                let slice = c
                    .stream
                    .alloc_zeros::<T>(len)
                    .map_err(GpuError::driver("device allocation"))?;
                cuda_storage(c, slice)
            }
            DeviceInner::Sim => Storage::Sim(vec![T::default(); len]),
        };
        Ok(DeviceArray {
            device: device.clone(),
            storage,
            len,
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The array's device address (`CUdeviceptr`) on a CUDA device; `None` on the
    /// simulator. Reading it is safe; what is done with it (a launch through the driver,
    /// another library) must keep to the array's length and outlive neither the array nor
    /// its device.
    pub fn device_ptr(&self) -> Option<u64> {
        match &self.storage {
            Storage::Cuda { ptr, .. } => Some(*ptr),
            Storage::Sim(_) => None,
        }
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Copy the array into a new `Vec` (Numba's `copy_to_host()`). Waits for the work
    /// queued before it, so a fault of an earlier launch is reported here.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copy the array into `dst`, which must have the same length.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        self.check_len(dst.len(), "copy_to_host")?;
        match (&self.storage, &*self.device.inner) {
            (Storage::Cuda { slice, .. }, DeviceInner::Cuda(c)) => {
                c.stream
                    .memcpy_dtoh(slice, dst)
                    .map_err(GpuError::driver("device-to-host copy"))?;
                c.stream
                    .synchronize()
                    .map_err(GpuError::driver("device-to-host copy"))
            }
            (Storage::Sim(v), _) => {
                dst.copy_from_slice(v);
                Ok(())
            }
            _ => unreachable!("an array's storage always matches its device"),
        }
    }

    /// Overwrite the array with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.check_len(src.len(), "copy_from_host")?;
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda { slice, .. }, DeviceInner::Cuda(c)) => c
                .stream
                .memcpy_htod(src, slice)
                .map_err(GpuError::driver("host-to-device copy")),
            (Storage::Sim(v), _) => {
                v.copy_from_slice(src);
                Ok(())
            }
            _ => unreachable!("an array's storage always matches its device"),
        }
    }

    fn check_len(&self, other: usize, what: &str) -> Result<()> {
        if other == self.len {
            Ok(())
        } else {
            Err(GpuError::InvalidArgument(format!(
                "{what}: the host slice has {other} elements but the device array has {}",
                self.len
            )))
        }
    }
}

fn cuda_storage<T>(c: &crate::cuda::CudaDevice, slice: CudaSlice<T>) -> Storage<T> {
    // Event tracking is off on our contexts, so the guard records nothing; the address
    // stays valid for the slice's life.
    let ptr = {
        let (ptr, _guard) = slice.device_ptr(&c.stream);
        ptr
    };
    Storage::Cuda { slice, ptr }
}
