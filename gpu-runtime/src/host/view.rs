//! Views of a part of a device array: `a.slice(10..20)`, `a.slice_mut(..)`, accepted
//! wherever a kernel takes `&[T]` / `&mut [T]`, with their own length (checked as whole
//! arrays are).
//!
//! A view borrows its array (shared or exclusive, as Rust slices do), so while a mutable
//! view exists nothing else reads or writes the array, and a launch that takes two
//! mutable views of one array cannot be written.

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

use crate::dtype::Element;
use crate::error::{GpuError, Result};
use crate::host::args::{ArrayParts, ArrayPartsMut, SliceArg, SliceArgMut};
use crate::host::array::DeviceArray;
use crate::host::array::Storage;
use crate::host::device::Device;

/// A read-only view of `len` elements of a [`DeviceArray`], from
/// [`DeviceArray::slice`].
#[derive(Debug)]
pub struct DeviceSlice<'a, T: Element> {
    array: &'a DeviceArray<T>,
    start: usize,
    len: usize,
}

/// A writable view of part of a [`DeviceArray`], from [`DeviceArray::slice_mut`].
#[derive(Debug)]
pub struct DeviceSliceMut<'a, T: Element> {
    array: &'a mut DeviceArray<T>,
    start: usize,
    len: usize,
}

/// `range` of `0..len` as `(start, len)`, or an error that says why not.
fn bounds(range: impl RangeBounds<usize>, len: usize) -> Result<(usize, usize)> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok((s, e - s)),
        _ => Err(GpuError::InvalidArgument(format!(
            "the range {:?}..{:?} is not within an array of {len} elements",
            range.start_bound(),
            range.end_bound()
        ))),
    }
}

impl<T: Element> DeviceArray<T> {
    /// A read-only view of `range` (`a.slice(10..20)`, `a.slice(..n)`), to pass where a
    /// kernel takes `&[T]`. An error if the range is not within the array.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        let (start, len) = bounds(range, self.len())?;
        Ok(DeviceSlice {
            array: self,
            start,
            len,
        })
    }

    /// A writable view of `range`, to pass where a kernel takes `&mut [T]`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let (start, len) = bounds(range, self.len())?;
        Ok(DeviceSliceMut {
            array: self,
            start,
            len,
        })
    }
}

macro_rules! view_methods {
    ($name:ident) => {
        impl<'a, T: Element> $name<'a, T> {
            /// Number of elements.
            pub fn len(&self) -> usize {
                self.len
            }

            /// Whether the view has no elements.
            pub fn is_empty(&self) -> bool {
                self.len == 0
            }

            /// The device the array lives on.
            pub fn device(&self) -> &Device {
                self.array.device()
            }

            /// Where the view starts in its array.
            pub fn start(&self) -> usize {
                self.start
            }

            /// Copy the view's elements into a new `Vec`, after the work queued before.
            pub fn to_host(&self) -> Result<Vec<T>> {
                let mut out = vec![crate::dtype::zeroed::<T>(); self.len];
                self.array.copy_range_to_host(self.start, &mut out)?;
                Ok(out)
            }
        }
    };
}

view_methods!(DeviceSlice);
view_methods!(DeviceSliceMut);

impl<'a, T: Element> DeviceSliceMut<'a, T> {
    /// A writable view of `range` of this view.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let (start, len) = bounds(range, self.len)?;
        Ok(DeviceSliceMut {
            array: self.array,
            start: self.start + start,
            len,
        })
    }

    /// Overwrite the view's elements with `src`, of the same length.
    pub fn copy_from_host(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len {
            return Err(GpuError::InvalidArgument(format!(
                "copy_from_host: the host slice has {} elements but the view has {}",
                src.len(),
                self.len
            )));
        }
        self.array.copy_range_from_host(self.start, src)
    }
}

impl<'a, T: Element> DeviceSlice<'a, T> {
    /// A read-only view of `range` of this view.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'a, T>> {
        let (start, len) = bounds(range, self.len)?;
        Ok(DeviceSlice {
            array: self.array,
            start: self.start + start,
            len,
        })
    }
}

impl<T: Element> crate::host::args::Sealed for DeviceSlice<'_, T> {}
impl<T: Element> crate::host::args::Sealed for DeviceSliceMut<'_, T> {}

impl<T: Element> SliceArg<T> for DeviceSlice<'_, T> {
    #[inline]
    fn __array(&self) -> ArrayParts<'_, T> {
        self.array.parts_at(self.start, self.len)
    }
}

impl<T: Element> SliceArg<T> for DeviceSliceMut<'_, T> {
    #[inline]
    fn __array(&self) -> ArrayParts<'_, T> {
        self.array.parts_at(self.start, self.len)
    }
}

impl<T: Element> SliceArgMut<T> for DeviceSliceMut<'_, T> {
    #[inline]
    fn __array_mut(&mut self) -> ArrayPartsMut<'_, T> {
        self.array.parts_mut_at(self.start, self.len)
    }
}

impl<T: Element> DeviceArray<T> {
    /// The parts of `len` elements from `start` (within the array: the views check).
    pub(crate) fn parts_at(&self, start: usize, len: usize) -> ArrayParts<'_, T> {
        let (cuda_ptr, sim_ptr) = match &self.storage {
            Storage::Cuda(c) => (
                c.ptr + (start * std::mem::size_of::<T>()) as u64,
                std::ptr::null(),
            ),
            // SAFETY: `start <= len` of the elements.
            Storage::Sim(v) => (0, unsafe { v.ptr().add(start).cast_const() }),
        };
        let offset = start * std::mem::size_of::<T>();
        ArrayParts::new(
            &self.device,
            cuda_ptr,
            sim_ptr,
            [len, 1, 1],
            offset,
            self.storage.owner(),
            PhantomData,
        )
    }

    /// The writable parts of `len` elements from `start`.
    pub(crate) fn parts_mut_at(&mut self, start: usize, len: usize) -> ArrayPartsMut<'_, T> {
        let (cuda_ptr, sim_ptr) = match &self.storage {
            Storage::Cuda(c) => (
                c.ptr + (start * std::mem::size_of::<T>()) as u64,
                std::ptr::null_mut(),
            ),
            // SAFETY: `start <= len` of the elements.
            Storage::Sim(v) => (0, unsafe { v.ptr().add(start) }),
        };
        let offset = start * std::mem::size_of::<T>();
        ArrayPartsMut::new(
            &self.device,
            cuda_ptr,
            sim_ptr,
            [len, 1, 1],
            offset,
            self.storage.owner(),
            PhantomData,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_outside_the_array_are_errors() {
        let dev = Device::simulator();
        let mut a = dev.to_device(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(a.slice(1..3).unwrap().to_host().unwrap(), [2.0, 3.0]);
        assert_eq!(a.slice(..).unwrap().len(), 4);
        assert!(a.slice(3..5).is_err());
        assert!(a.slice(usize::MAX..).is_err());
        assert!(a
            .slice((Bound::Excluded(usize::MAX), Bound::Unbounded))
            .is_err());
        let mut v = a.slice_mut(2..).unwrap();
        v.copy_from_host(&[7.0, 8.0]).unwrap();
        assert!(v.slice_mut(1..3).is_err());
        assert_eq!(a.to_host().unwrap(), [1.0, 2.0, 7.0, 8.0]);
    }
}
