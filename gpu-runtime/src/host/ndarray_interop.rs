//! Copies between `ndarray` arrays on the host and device arrays (cargo feature `ndarray`).
//!
//! A view of any layout goes up: a row-major contiguous one as it is, any other (a
//! transpose, a strided slice, a column-major array) first copied into row-major order,
//! which is the order the device arrays and their kernels index. What comes back is a
//! row-major owned array of the same shape.

use ndarray::{Array1, Array2, Array3, ArrayView1, ArrayView2, ArrayView3};

use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::array::{DeviceArray, DeviceArray2, DeviceArray3};
use crate::host::device::Device;

fn shape_error(e: ndarray::ShapeError) -> GpuError {
    GpuError::InvalidArgument(format!("ndarray: {e}"))
}

/// The host's physical memory in bytes, where the platform says.
fn host_memory() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: `sysconf` reads a system setting; it has no preconditions.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && size > 0 {
            return (pages as u64).checked_mul(size as u64);
        }
    }
    None
}

/// The elements of `view` in row-major order, borrowed when they already are, else copied
/// into a buffer allocated fallibly: a view that stands for more elements than it stores
/// (a broadcast one: `2^40` elements of one value) is `OutOfMemory` when the device could
/// not hold it or the host cannot gather it, never an abort.
fn row_major<'a, T: Element, D: ndarray::Dimension>(
    device: &Device,
    view: &'a ndarray::ArrayView<'_, T, D>,
) -> Result<std::borrow::Cow<'a, [T]>> {
    if let Some(s) = view.as_slice() {
        return Ok(std::borrow::Cow::Borrowed(s));
    }
    let len = view.len();
    let bytes = len.checked_mul(std::mem::size_of::<T>());
    let out_of_memory = || GpuError::OutOfMemory {
        device: device.describe(),
        bytes: bytes.map_or(u64::MAX, |b| b as u64),
    };
    let bytes = bytes.ok_or_else(out_of_memory)? as u64;
    // The device's memory, or on the simulator the host's, bounds what is worth gathering
    // (an allocation past it would only fail later, or slowly).
    let total = match device.memory_info()? {
        Some(info) => Some(info.total),
        None => host_memory(),
    };
    if total.is_some_and(|t| bytes > t) {
        return Err(out_of_memory());
    }
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|_| out_of_memory())?;
    gather(&mut out, view.view().into_dyn());
    Ok(std::borrow::Cow::Owned(out))
}

/// The elements as a device array: a gathered copy becomes the simulator's memory as it
/// is, without a second copy.
fn upload<T: Element>(device: &Device, elems: std::borrow::Cow<'_, [T]>) -> Result<DeviceArray<T>> {
    match elems {
        std::borrow::Cow::Borrowed(s) => device.to_device(s),
        std::borrow::Cow::Owned(v) => DeviceArray::from_host_vec(device, v),
    }
}

/// Push the elements of `view` in row-major order onto `out`. An axis of stride 0 (a
/// broadcast) is gathered once and its block repeated by doubling copies, and a
/// contiguous last axis is copied as a slice, so a broadcast view costs its copies, not a
/// step per element.
fn gather<T: Copy>(out: &mut Vec<T>, view: ndarray::ArrayViewD<'_, T>) {
    use ndarray::Axis;
    match view.ndim() {
        0 => out.extend(view.iter().copied()),
        1 => match (view.as_slice(), view.strides()[0]) {
            (Some(s), _) => out.extend_from_slice(s),
            (None, 0) if !view.is_empty() => {
                let start = out.len();
                out.push(view[0]);
                repeat_block(out, start, 1, view.len());
            }
            _ => out.extend(view.iter().copied()),
        },
        _ => {
            let n = view.len_of(Axis(0));
            if n == 0 {
                return;
            }
            if view.strides()[0] == 0 || n == 1 {
                let start = out.len();
                gather(out, view.index_axis(Axis(0), 0));
                let block = out.len() - start;
                if block > 0 {
                    repeat_block(out, start, block, n);
                }
            } else {
                for i in 0..n {
                    gather(out, view.index_axis(Axis(0), i));
                }
            }
        }
    }
}

/// `out[start..]` holds one block of `block` elements: extend it to `times` blocks by
/// doubling copies.
fn repeat_block<T: Copy>(out: &mut Vec<T>, start: usize, block: usize, times: usize) {
    let total = block * times;
    while out.len() - start < total {
        let have = out.len() - start;
        let take = have.min(total - have);
        out.extend_from_within(start..start + take);
    }
}

impl<T: Element> DeviceArray<T> {
    /// A device array with the elements of `host`, in order.
    pub fn from_ndarray(device: &Device, host: ArrayView1<'_, T>) -> Result<Self> {
        upload(device, row_major(device, &host)?)
    }

    /// The array as an `ndarray::Array1`.
    pub fn to_ndarray(&self) -> Result<Array1<T>> {
        Ok(Array1::from_vec(self.to_host()?))
    }
}

impl<T: Element> DeviceArray2<T> {
    /// A `rows x cols` device array with the elements of `host` (any layout), row-major.
    pub fn from_ndarray(device: &Device, host: ArrayView2<'_, T>) -> Result<Self> {
        DeviceArray2::from_parts(upload(device, row_major(device, &host)?)?, host.dim())
    }

    /// The array as an `ndarray::Array2` of the same shape.
    pub fn to_ndarray(&self) -> Result<Array2<T>> {
        Array2::from_shape_vec(self.shape(), self.to_host()?).map_err(shape_error)
    }
}

impl<T: Element> DeviceArray3<T> {
    /// A device array of `host`'s shape with its elements (any layout), row-major.
    pub fn from_ndarray(device: &Device, host: ArrayView3<'_, T>) -> Result<Self> {
        DeviceArray3::from_parts(upload(device, row_major(device, &host)?)?, host.dim())
    }

    /// The array as an `ndarray::Array3` of the same shape.
    pub fn to_ndarray(&self) -> Result<Array3<T>> {
        Array3::from_shape_vec(self.shape(), self.to_host()?).map_err(shape_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array};

    #[test]
    fn views_of_any_layout_go_up_row_major_and_come_back_in_shape() {
        let dev = Device::simulator();
        let a = Array::from_shape_fn((4, 5, 6), |(i, j, k)| (i * 100 + j * 10 + k) as i32);
        // Contiguous, permuted and strided views, each against ndarray's own element order.
        let permuted = a.view().permuted_axes([2, 0, 1]);
        let strided = a.slice(s![.., ..;2, 1..;3]);
        for v in [a.view(), permuted, strided] {
            let d = DeviceArray3::from_ndarray(&dev, v).unwrap();
            assert_eq!(d.shape(), v.dim());
            assert_eq!(d.to_ndarray().unwrap(), v);
            assert_eq!(d.to_host().unwrap(), v.iter().copied().collect::<Vec<_>>());
        }
        let m = a.index_axis(ndarray::Axis(2), 3);
        let t = m.t();
        let d = DeviceArray2::from_ndarray(&dev, t).unwrap();
        assert_eq!((d.rows(), d.cols()), (5, 4));
        assert_eq!(d.to_ndarray().unwrap(), t);
        let col = a.slice(s![2, .., 4]);
        let d = DeviceArray::from_ndarray(&dev, col).unwrap();
        assert_eq!(d.to_ndarray().unwrap(), col);
        let empty = Array2::<f32>::zeros((0, 7));
        let d = DeviceArray2::from_ndarray(&dev, empty.view()).unwrap();
        assert_eq!(d.to_ndarray().unwrap(), empty);
    }

    #[test]
    fn a_broadcast_view_larger_than_memory_is_an_error_not_an_abort() {
        let dev = Device::simulator();
        let one = Array::from_elem(1, 1.0f32);
        let huge = one.broadcast(1usize << 40).expect("a broadcast view");
        match DeviceArray::from_ndarray(&dev, huge) {
            Err(GpuError::OutOfMemory { bytes, .. }) => assert_eq!(bytes, 4 << 40),
            other => panic!("want OutOfMemory, got {other:?}"),
        }
        let two = Array::from_elem((1, 1), 1u8);
        let wide = two
            .broadcast((1usize << 40, 1 << 20))
            .expect("a broadcast view");
        assert!(matches!(
            DeviceArray2::from_ndarray(&dev, wide),
            Err(GpuError::OutOfMemory { .. })
        ));
    }
}
