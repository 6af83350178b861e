//! Arrays in device memory.
//!
//! Contract: an array's extents always describe the allocation behind it. The allocation
//! is fixed for the array's life (no safe call replaces it), and 2-D and 3-D arrays hand
//! out their elements only as shared references or copies, so a kernel checked against
//! `rows x cols` never meets a buffer of another size.

use std::fmt;

use crate::backend::cuda::buffer::{self, CudaBuffer};
use crate::backend::sim::memory::SimBuffer;
use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::device::{Device, DeviceInner};

pub(crate) enum Storage<T> {
    /// Device memory, freed (in its context) when the array drops.
    Cuda(CudaBuffer<T>),
    /// The simulator's memory.
    Sim(SimBuffer<T>),
}

impl<T: Element> Storage<T> {
    /// The allocation's owner, which a recorded graph keeps.
    pub(crate) fn owner(&self) -> &dyn crate::keep_alive::KeepAlive {
        match self {
            Storage::Cuda(b) => b.owner(),
            Storage::Sim(v) => v.owner(),
        }
    }
}

/// A one-dimensional array of `T` on a [`Device`]: the argument type of a kernel's `&[T]`
/// and `&mut [T]` parameters.
pub struct DeviceArray<T: Element> {
    pub(crate) device: Device,
    pub(crate) storage: Storage<T>,
    pub(crate) len: usize,
}

impl<T: Element> fmt::Debug for DeviceArray<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceArray<{}>[{}] on {}",
            T::ELEM,
            self.len,
            self.device.describe()
        )
    }
}

impl<T: Element> DeviceArray<T> {
    /// An array of `host`'s elements: on the simulator the vector itself becomes its
    /// memory (no copy), on a GPU it is copied up.
    pub(crate) fn from_host_vec(device: &Device, host: Vec<T>) -> Result<Self> {
        match &*device.inner {
            DeviceInner::Sim(_) => {
                crate::host::graph::forbid("a copy to a new array")?;
                let len = host.len();
                Ok(DeviceArray {
                    device: device.clone(),
                    storage: Storage::Sim(SimBuffer::new(host)),
                    len,
                })
            }
            DeviceInner::Cuda(_) => DeviceArray::from_host(device, &host),
        }
    }

    pub(crate) fn from_host(device: &Device, host: &[T]) -> Result<Self> {
        crate::host::graph::forbid("a copy to a new array")?;
        let storage = match &*device.inner {
            DeviceInner::Cuda(c) => {
                let slice = buffer::clone_htod(&c.stream, host).map_err(c.allocation_error(
                    device.name(),
                    std::mem::size_of_val(host) as u64,
                    "host-to-device copy",
                ))?;
                Storage::Cuda(CudaBuffer::new(slice))
            }
            DeviceInner::Sim(_) => {
                let mut v = reserve(device, host.len())?;
                v.extend_from_slice(host);
                Storage::Sim(SimBuffer::new(v))
            }
        };
        Ok(DeviceArray {
            device: device.clone(),
            storage,
            len: host.len(),
        })
    }

    /// `len` elements for the device to write before it reads them: on a GPU left as
    /// the memory held them (no memset), on the simulator zeros.
    ///
    /// # Safety
    ///
    /// As [`buffer::alloc_scratch`]: every element is written before anything reads it.
    pub(crate) unsafe fn scratch(device: &Device, len: usize) -> Result<Self> {
        let DeviceInner::Cuda(c) = &*device.inner else {
            return Self::zeros(device, len);
        };
        crate::host::graph::forbid("an allocation")?;
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| out_of_memory::<T>(device, len))?;
        // SAFETY: the caller writes every element before anything reads it.
        let slice = unsafe { buffer::alloc_scratch::<T>(&c.stream, len) }
            .map_err(c.allocation_error(device.name(), bytes as u64, "device allocation"))?;
        Ok(DeviceArray {
            device: device.clone(),
            storage: Storage::Cuda(CudaBuffer::new(slice)),
            len,
        })
    }

    pub(crate) fn zeros(device: &Device, len: usize) -> Result<Self> {
        crate::host::graph::forbid("an allocation")?;
        let storage = match &*device.inner {
            DeviceInner::Cuda(c) => {
                let bytes = len
                    .checked_mul(std::mem::size_of::<T>())
                    .ok_or_else(|| out_of_memory::<T>(device, len))?;
                let slice = buffer::alloc_zeros::<T>(&c.stream, len).map_err(
                    c.allocation_error(device.name(), bytes as u64, "device allocation"),
                )?;
                Storage::Cuda(CudaBuffer::new(slice))
            }
            DeviceInner::Sim(_) => Storage::Sim(SimBuffer::new(zeroed_vec(device, len)?)),
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
            Storage::Cuda(b) => Some(b.ptr),
            Storage::Sim(_) => None,
        }
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Copy the array into a new `Vec` (Numba's `copy_to_host()`). Waits for the work
    /// queued before it, so a fault of an earlier launch (an index out of bounds in a
    /// checked kernel, or a lost context) is reported here.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let mut out = vec![crate::dtype::zeroed::<T>(); self.len];
        self.copy_to_host(&mut out)?;
        Ok(out)
    }

    /// Copy the array into `dst`, which must have the same length.
    pub fn copy_to_host(&self, dst: &mut [T]) -> Result<()> {
        crate::host::graph::forbid("a copy to the host")?;
        self.check_len(dst.len(), "copy_to_host")?;
        match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(b), DeviceInner::Cuda(c)) => {
                buffer::dtoh_sync(&c.stream, &b.slice().as_view(), dst)
                    .map_err(c.driver_error("device-to-host copy"))?;
                c.check_faults()
            }
            (Storage::Sim(v), _) => {
                v.read(|v| dst.copy_from_slice(v));
                Ok(())
            }
            _ => unreachable!("an array's storage always matches its device"),
        }
    }

    /// Overwrite the array with `src`, which must have the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        crate::host::graph::forbid("a copy from the host")?;
        self.check_len(src.len(), "copy_from_host")?;
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda(b), DeviceInner::Cuda(c)) => {
                buffer::htod(&c.stream, src, &mut b.slice_mut().as_view_mut())
                    .map_err(c.driver_error("host-to-device copy"))
            }
            (Storage::Sim(v), _) => {
                v.write(|v| v.copy_from_slice(src));
                Ok(())
            }
            _ => unreachable!("an array's storage always matches its device"),
        }
    }

    /// Copy `dst.len()` elements from `start` into `dst` (within the array: the caller
    /// checks), after the work queued before.
    pub(crate) fn copy_range_to_host(&self, start: usize, dst: &mut [T]) -> Result<()> {
        crate::host::graph::forbid("a copy to the host")?;
        let end = start + dst.len();
        match (&self.storage, &*self.device.inner) {
            (Storage::Cuda(b), DeviceInner::Cuda(c)) => {
                buffer::dtoh_sync(&c.stream, &b.slice().slice(start..end), dst)
                    .map_err(c.driver_error("device-to-host copy"))?;
                c.check_faults()
            }
            (Storage::Sim(v), _) => {
                v.read(|v| dst.copy_from_slice(&v[start..end]));
                Ok(())
            }
            _ => unreachable!("an array's storage always matches its device"),
        }
    }

    /// Overwrite `src.len()` elements from `start` with `src` (within the array).
    pub(crate) fn copy_range_from_host(&mut self, start: usize, src: &[T]) -> Result<()> {
        crate::host::graph::forbid("a copy from the host")?;
        let end = start + src.len();
        match (&mut self.storage, &*self.device.inner) {
            (Storage::Cuda(b), DeviceInner::Cuda(c)) => {
                buffer::htod(&c.stream, src, &mut b.slice_mut().slice_mut(start..end))
                    .map_err(c.driver_error("host-to-device copy"))
            }
            (Storage::Sim(v), _) => {
                v.write(|v| v[start..end].copy_from_slice(src));
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

/// A row-major two-dimensional array on a [`Device`]: the argument type of a kernel's
/// `&DeviceArray2<T>` and `&mut DeviceArray2<T>` parameters, indexed `a[(row, col)]` in the kernel.
#[derive(Debug)]
pub struct DeviceArray2<T: Element> {
    data: DeviceArray<T>,
    rows: usize,
    cols: usize,
}

impl<T: Element> DeviceArray2<T> {
    /// `data` as a `rows x cols` array (its length is already `rows * cols`).
    pub(crate) fn from_parts(data: DeviceArray<T>, (rows, cols): (usize, usize)) -> Result<Self> {
        check_shape(data.len(), rows, cols)?;
        Ok(DeviceArray2 { data, rows, cols })
    }

    pub(crate) fn from_host(device: &Device, host: &[T], rows: usize, cols: usize) -> Result<Self> {
        check_shape(host.len(), rows, cols)?;
        Ok(DeviceArray2 {
            data: DeviceArray::from_host(device, host)?,
            rows,
            cols,
        })
    }

    pub(crate) fn zeros(device: &Device, rows: usize, cols: usize) -> Result<Self> {
        let len = rows.checked_mul(cols).ok_or_else(|| {
            GpuError::InvalidArgument(format!("{rows} x {cols} elements overflow"))
        })?;
        Ok(DeviceArray2 {
            data: DeviceArray::zeros(device, len)?,
            rows,
            cols,
        })
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// `(rows, cols)`, as Numba's `shape`.
    pub fn shape(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        self.data.device()
    }

    /// The elements as one row-major 1-D array.
    pub fn flat(&self) -> &DeviceArray<T> {
        &self.data
    }

    /// The elements as one 1-D array, for the launcher: crate-private, since a
    /// `&mut DeviceArray` could be replaced by one of another length.
    pub(crate) fn flat_storage_mut(&mut self) -> &mut DeviceArray<T> {
        &mut self.data
    }

    /// Copy the array to the host, row-major.
    pub fn to_host(&self) -> Result<Vec<T>> {
        self.data.to_host()
    }

    /// Overwrite the array with `src`, row-major, of the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.data.copy_from_host(src)
    }
}

/// The error for `len` elements of `T` that `device` cannot hold.
fn out_of_memory<T>(device: &Device, len: usize) -> GpuError {
    GpuError::OutOfMemory {
        device: device.name().to_owned(),
        bytes: len
            .checked_mul(std::mem::size_of::<T>())
            .map_or(u64::MAX, |b| b as u64),
    }
}

/// `len` zeros, for the simulator's memory: allocated zeroed (`calloc`), so the system
/// hands out pages of zeros as they are first touched and a large array costs no time
/// until used; a request the host cannot meet is an error, not an abort.
pub(crate) fn zeroed_vec<T: Element>(device: &Device, len: usize) -> Result<Vec<T>> {
    if len == 0 || std::mem::size_of::<T>() == 0 {
        let mut v = Vec::new();
        v.resize(len, crate::dtype::zeroed::<T>());
        return Ok(v);
    }
    let layout =
        std::alloc::Layout::array::<T>(len).map_err(|_| out_of_memory::<T>(device, len))?;
    // SAFETY: the layout's size is not zero (`len` and the element size are not).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(out_of_memory::<T>(device, len));
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `len` elements of
    // `T`, as `Vec` allocates them, so capacity and length are both `len`; all-zero bytes
    // are a valid `T` (`Element`'s contract), so every element is initialised.
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// An empty `Vec` with room for `len` elements, for the simulator's memory: reserved
/// first, so a request the host cannot meet is an error, not an abort.
pub(crate) fn reserve<T>(device: &Device, len: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| out_of_memory::<T>(device, len))?;
    Ok(v)
}

fn check_shape(len: usize, rows: usize, cols: usize) -> Result<()> {
    if rows.checked_mul(cols) == Some(len) {
        Ok(())
    } else {
        Err(GpuError::InvalidArgument(format!(
            "a {rows} x {cols} array needs {} elements, but the host slice has {len}",
            rows.saturating_mul(cols)
        )))
    }
}

/// A row-major three-dimensional array on a [`Device`]: the argument type of a kernel's
/// `&DeviceArray3<T>` and `&mut DeviceArray3<T>` parameters, indexed `a[(i, j, k)]` in the kernel.
#[derive(Debug)]
pub struct DeviceArray3<T: Element> {
    data: DeviceArray<T>,
    shape: [usize; 3],
}

impl<T: Element> DeviceArray3<T> {
    /// `data` as an array of `shape` (its length is already the shape's volume).
    pub(crate) fn from_parts(
        data: DeviceArray<T>,
        (a, b, c): (usize, usize, usize),
    ) -> Result<Self> {
        let shape = [a, b, c];
        if volume(shape)? != data.len() {
            return Err(GpuError::InvalidArgument(format!(
                "a {a} x {b} x {c} array cannot hold {} elements",
                data.len()
            )));
        }
        Ok(DeviceArray3 { data, shape })
    }

    pub(crate) fn from_host(device: &Device, host: &[T], shape: [usize; 3]) -> Result<Self> {
        let len = volume(shape)?;
        if len != host.len() {
            return Err(GpuError::InvalidArgument(format!(
                "a {} x {} x {} array needs {len} elements, but the host slice has {}",
                shape[0],
                shape[1],
                shape[2],
                host.len()
            )));
        }
        Ok(DeviceArray3 {
            data: DeviceArray::from_host(device, host)?,
            shape,
        })
    }

    pub(crate) fn zeros(device: &Device, shape: [usize; 3]) -> Result<Self> {
        Ok(DeviceArray3 {
            data: DeviceArray::zeros(device, volume(shape)?)?,
            shape,
        })
    }

    /// The extents, outermost first.
    pub fn shape(&self) -> (usize, usize, usize) {
        (self.shape[0], self.shape[1], self.shape[2])
    }

    /// The device the array lives on.
    pub fn device(&self) -> &Device {
        self.data.device()
    }

    /// The elements as one row-major 1-D array.
    pub fn flat(&self) -> &DeviceArray<T> {
        &self.data
    }

    /// The elements as one 1-D array, for the launcher (see
    /// [`DeviceArray2::flat_storage_mut`]).
    pub(crate) fn flat_storage_mut(&mut self) -> &mut DeviceArray<T> {
        &mut self.data
    }

    /// Copy the array to the host, row-major.
    pub fn to_host(&self) -> Result<Vec<T>> {
        self.data.to_host()
    }

    /// Overwrite the array with `src`, row-major, of the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        self.data.copy_from_host(src)
    }
}

fn volume(shape: [usize; 3]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| GpuError::InvalidArgument(format!("a {shape:?} array overflows")))
}
