//! What a kernel's array parameters (`&[T]`, `&mut [T]`, `&DeviceArray2<T>`, `&DeviceArray3<T>`) and
//! a `#[gpu_device]` function's arrays are in the body's Rust: the types rustc checks the
//! body against and the simulator runs it with. Public as `gpu_runtime::simulator`.
//!
//! Contract: a view reads and writes elements by value ([`SimSlice::get`],
//! [`SimSliceMut::set`]) with relaxed atomic accesses, never through a reference, and
//! checks every index. The attribute rewrites the body's `a[i]` into `a.get(i)` and
//! `a[i] = v` into `a.set(i, v)`. So views may be copied into every simulated thread (they
//! are handles, as pointers are on the GPU) and used from threads running at once: even a
//! kernel with a data race reads some value that was written, and no two `&mut` to one
//! element can exist. A view is made only from an array borrowed for its lifetime (a
//! kernel launch's argument, a host slice passed to a device function), or by the
//! simulator from memory it owns for the block.

pub(crate) use super::parts::{call_on_element, field_offset, load, store, store_field};
use super::SimFault;
use crate::dtype::Element;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

/// An index past an extent: a simulator error naming the kernel and the array, or, for a
/// view of a host slice (no kernel), a panic like a slice's.
#[cold]
#[inline(never)]
pub(crate) fn out_of_bounds(
    kernel: &'static str,
    param: &'static str,
    index: usize,
    len: usize,
) -> ! {
    if kernel.is_empty() {
        panic!("index out of bounds: the len is {len} but the index is {index}");
    }
    // `resume_unwind` skips the panic hook: the simulator turns this into an error value,
    // so nothing is printed.
    std::panic::resume_unwind(Box::new(SimFault::OutOfBounds {
        kernel,
        param,
        index,
        len,
    }))
}

/// The flat index of `idx` in a row-major array of `extents`, every axis checked.
#[inline]
fn flat<const R: usize>(
    idx: [usize; R],
    extents: [usize; R],
    kernel: &'static str,
    names: [&'static str; R],
) -> usize {
    let mut at = 0usize;
    for k in 0..R {
        if idx[k] >= extents[k] {
            out_of_bounds(kernel, names[k], idx[k], extents[k]);
        }
        // In range on every axis, so below the array's length, which fits in memory.
        at = at * extents[k] + idx[k];
    }
    at
}

macro_rules! view {
    ($(#[$doc:meta])* $name:ident, $rank:literal, $index:ty, $to_array:expr, $ptr:ty) => {
        $(#[$doc])*
        pub struct $name<'a, T> {
            ptr: $ptr,
            extents: [usize; $rank],
            kernel: &'static str,
            names: [&'static str; $rank],
            _borrow: PhantomData<&'a [T]>,
        }

        impl<T> Clone for $name<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $name<'_, T> {}
        impl<T> std::fmt::Debug for $name<'_, T> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{:?} of `{}`", stringify!($name), self.extents, self.kernel)
            }
        }
        // SAFETY: a handle to memory the simulated threads share, as on the GPU; every
        // access through it is atomic (see the module's contract).
        unsafe impl<T: Send + Sync> Send for $name<'_, T> {}
        // SAFETY: as above.
        unsafe impl<T: Send + Sync> Sync for $name<'_, T> {}

        impl<'a, T: Element> $name<'a, T> {
            /// Elements, as `a.len()`.
            pub fn len(&self) -> usize {
                self.extents.iter().product()
            }

            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }

            #[inline]
            fn offset(&self, index: $index) -> usize {
                let to_array: fn($index) -> [usize; $rank] = $to_array;
                flat(to_array(index), self.extents, self.kernel, self.names)
            }

            /// The element at `index`, checked.
            #[inline]
            pub fn get(&self, index: $index) -> T {
                let at = self.offset(index);
                // SAFETY: `at` is below the length of the borrowed array.
                unsafe { load(self.ptr.add(at)) }
            }

            /// The element at `index`, read without a check on the GPU (the simulator
            /// checks anyway): `unsafe { a.get_unchecked(i) }` in a kernel.
            ///
            /// # Safety
            ///
            /// `index` must be in range. The simulator checks it regardless, so a mistake
            /// shows there; on the GPU an index out of range reads memory that is not the
            /// array's.
            #[inline]
            pub unsafe fn get_unchecked(&self, index: $index) -> T {
                self.get(index)
            }
        }
    };
}

/// The element `*a.get_unchecked_mut(i)` names: written with `= v` (or `op= v`) in a
/// kernel, which the attribute turns into [`set`](ElementMut::set).
#[derive(Debug)]
pub struct ElementMut<'v, T> {
    ptr: *mut T,
    _view: PhantomData<&'v ()>,
}

impl<T: Element> ElementMut<'_, T> {
    /// The element at `ptr`, which must be in range of an array borrowed mutably.
    pub(crate) fn new(ptr: *mut T) -> Self {
        ElementMut {
            ptr,
            _view: PhantomData,
        }
    }

    /// The element's value.
    #[inline]
    pub fn get(&self) -> T {
        // SAFETY: `ptr` was checked to be in its array when the element was named.
        unsafe { load(self.ptr) }
    }

    /// Write `value` to the element.
    #[inline]
    pub fn set(&self, value: T) {
        // SAFETY: as above, in an array borrowed mutably.
        unsafe { store(self.ptr, value) }
    }
}

macro_rules! view_read {
    ($name:ident, $index:ty) => {
        impl<'a, T: Element> $name<'a, T> {
            /// `f` called on the element at `index`, checked: what `a[i].m(..)` is in the
            /// simulator for a method `m` of the element's type (a method that takes
            /// `&mut self` cannot be called on an element of an array the kernel only reads).
            #[inline]
            pub fn with_elem<R>(&self, index: $index, f: impl FnOnce(&T) -> R) -> R {
                f(&self.get(index))
            }
        }
    };
}

macro_rules! view_mut {
    ($name:ident, $index:ty) => {
        impl<'a, T: Element> $name<'a, T> {
            /// Write `value` at `index`, checked.
            #[inline]
            pub fn set(&self, index: $index, value: T) {
                let at = self.offset(index);
                // SAFETY: `at` is below the length of the array borrowed mutably for `'a`.
                unsafe { store(self.ptr.add(at), value) }
            }

            /// The element at `index`, to be written without a check on the GPU (the
            /// simulator checks anyway): `unsafe { *a.get_unchecked_mut(i) = v }` in a
            /// kernel.
            ///
            /// # Safety
            ///
            /// `index` must be in range. The simulator checks it regardless; on the GPU an
            /// index out of range writes memory that is not the array's.
            #[inline]
            pub unsafe fn get_unchecked_mut(&self, index: $index) -> ElementMut<'_, T> {
                ElementMut {
                    ptr: self.element(index),
                    _view: PhantomData,
                }
            }

            /// Write `value` into the field of the struct at `index` that starts `offset`
            /// bytes in (`offset_of!(T, pos.x)`), checked: what `a[i].pos.x = v` is in the
            /// simulator. Only that field's bytes are written.
            #[inline]
            pub fn set_field<F: Element>(&self, index: $index, offset: usize, value: F) {
                let at = self.offset(index);
                // SAFETY: `at` is below the length of the array borrowed mutably for `'a`.
                unsafe { store_field(self.ptr.add(at), offset, value) }
            }

            /// Write `value` into the field `field` picks of the struct at `index`
            /// (`|e| &mut e.pos.x`), checked: what `a[i].pos.x = v` is in the simulator.
            /// Only that field's bytes are written; a closure that returns anything but a
            /// field of its argument panics.
            #[inline]
            pub fn set_field_by<F: Element>(
                &self,
                index: $index,
                field: impl FnOnce(&mut T) -> &mut F,
                value: F,
            ) {
                self.set_field(index, field_offset(field), value)
            }

            /// `f` called on the element at `index`, checked, and the parts it changed
            /// written back: what `a[i].m(..)` is in the simulator for a method `m` of the
            /// element's type, which on the GPU works on the element in place.
            #[inline]
            pub fn with_elem<R>(&self, index: $index, f: impl FnOnce(&mut T) -> R) -> R {
                let p = self.element(index);
                // SAFETY: `element` checked `index` against the array borrowed mutably.
                unsafe { call_on_element(p, f) }
            }

            /// The address of the element at `index`, checked (for atomics).
            #[doc(hidden)]
            #[inline]
            pub fn element(&self, index: $index) -> *mut T {
                let at = self.offset(index);
                // SAFETY: `at` is in range.
                unsafe { self.ptr.add(at) }
            }
        }
    };
}

view!(
    /// A kernel's `&[T]` parameter in the simulator.
    SimSlice, 1, usize, |i| [i], *const T
);
view!(
    /// A kernel's `&mut [T]` parameter in the simulator.
    SimSliceMut, 1, usize, |i| [i], *mut T
);
view!(
    /// A kernel's `&DeviceArray2<T>` parameter in the simulator.
    SimArray2, 2, (usize, usize), |(i, j)| [i, j], *const T
);
view!(
    /// A kernel's `&mut DeviceArray2<T>` parameter in the simulator.
    SimArray2Mut, 2, (usize, usize), |(i, j)| [i, j], *mut T
);
view!(
    /// A kernel's `&DeviceArray3<T>` parameter in the simulator.
    SimArray3, 3, (usize, usize, usize), |(i, j, k)| [i, j, k], *const T
);
view!(
    /// A kernel's `&mut DeviceArray3<T>` parameter in the simulator.
    SimArray3Mut, 3, (usize, usize, usize), |(i, j, k)| [i, j, k], *mut T
);
view_read!(SimSlice, usize);
view_read!(SimArray2, (usize, usize));
view_read!(SimArray3, (usize, usize, usize));
view_mut!(SimSliceMut, usize);
view_mut!(SimArray2Mut, (usize, usize));
view_mut!(SimArray3Mut, (usize, usize, usize));

macro_rules! constructors {
    ($name:ident, $rank:literal, $ptr:ty) => {
        impl<'a, T: Element> $name<'a, T> {
            /// The view of an array's memory at `ptr` with `extents` (past the rank, 1),
            /// reported as `names` of `kernel`. `ptr` must be a simulator array's, borrowed
            /// for `'a` as the view is (the host API's `new` makes views only of a
            /// launch's arguments); a GPU array's is null, and panics here.
            pub(crate) fn of_parts(
                ptr: $ptr,
                extents: [usize; 3],
                kernel: &'static str,
                names: [&'static str; $rank],
            ) -> Self {
                assert!(
                    !ptr.is_null() || extents.iter().take($rank).product::<usize>() == 0,
                    "a simulator view of an array that is not on the simulator"
                );
                let mut e = [0usize; $rank];
                e.copy_from_slice(&extents[..$rank]);
                $name {
                    ptr,
                    extents: e,
                    kernel,
                    names,
                    _borrow: PhantomData,
                }
            }
        }
    };
}

macro_rules! shape2 {
    ($name:ident) => {
        impl<T> $name<'_, T> {
            /// Rows, as `a.rows()`.
            pub fn rows(&self) -> usize {
                self.extents[0]
            }
            /// Columns, as `a.cols()`.
            pub fn cols(&self) -> usize {
                self.extents[1]
            }
            /// `(rows, cols)`, as `a.shape()`.
            pub fn shape(&self) -> (usize, usize) {
                (self.extents[0], self.extents[1])
            }
        }
    };
}

macro_rules! shape3 {
    ($name:ident) => {
        impl<T> $name<'_, T> {
            /// The extents, as `a.shape()`.
            pub fn shape(&self) -> (usize, usize, usize) {
                (self.extents[0], self.extents[1], self.extents[2])
            }
        }
    };
}

shape2!(SimArray2);
shape2!(SimArray2Mut);
shape3!(SimArray3);
shape3!(SimArray3Mut);

constructors!(SimSlice, 1, *const T);
constructors!(SimArray2, 2, *const T);
constructors!(SimArray3, 3, *const T);
constructors!(SimSliceMut, 1, *mut T);
constructors!(SimArray2Mut, 2, *mut T);
constructors!(SimArray3Mut, 3, *mut T);

/// The elements `range` names in an array of `len`, checked as Rust checks `a[range]`
/// and as the GPU's `gt_sub_start` reports it: an end past the length is a fault at the
/// end, a start past the end one at the start against the end.
fn sub_range(
    range: impl RangeBounds<usize>,
    len: usize,
    kernel: &'static str,
    name: &'static str,
) -> (usize, usize) {
    let (written, end) = match range.end_bound() {
        Bound::Included(&e) => (e, e.checked_add(1)),
        Bound::Excluded(&e) => (e, Some(e)),
        Bound::Unbounded => (len, Some(len)),
    };
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        // No range expression makes this bound.
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    match end {
        Some(end) if end <= len && start <= end => (start, end),
        Some(end) if end <= len => out_of_bounds(kernel, name, start, end),
        _ => out_of_bounds(kernel, name, written, len),
    }
}

/// `&v` of a kernel's local or module array, lent to a device function: a view named
/// `name` (`v (local array)`, `LUT (constant array)`), so an index past it inside the
/// function is the kernel's fault under that name, as on the GPU.
pub fn lent<'a, T>(data: &'a [T], name: &'static str) -> SimSlice<'a, T> {
    SimSlice {
        ptr: data.as_ptr(),
        extents: [data.len()],
        kernel: super::block::current_kernel().unwrap_or(""),
        names: [name],
        _borrow: PhantomData,
    }
}

/// `&mut v` of a kernel's local array, lent to a device function (see [`lent`]).
pub fn lent_mut<'a, T>(data: &'a mut [T], name: &'static str) -> SimSliceMut<'a, T> {
    SimSliceMut {
        ptr: data.as_mut_ptr(),
        extents: [data.len()],
        kernel: super::block::current_kernel().unwrap_or(""),
        names: [name],
        _borrow: PhantomData,
    }
}

impl<'a, T> SimSlice<'a, T> {
    /// `&a[range]` passed to a device function: a view of those elements, reported under
    /// the array's name (an index past it is relative to its start, as on the GPU).
    pub fn sub(&self, range: impl RangeBounds<usize>) -> SimSlice<'a, T> {
        let (start, end) = sub_range(range, self.extents[0], self.kernel, self.names[0]);
        SimSlice {
            ptr: self.ptr.wrapping_add(start),
            extents: [end - start],
            kernel: self.kernel,
            names: self.names,
            _borrow: PhantomData,
        }
    }

    /// A view of a host slice (a device function called from the host).
    pub(crate) fn from_host(data: &'a [T]) -> Self {
        SimSlice {
            ptr: data.as_ptr(),
            extents: [data.len()],
            kernel: "",
            names: [""],
            _borrow: PhantomData,
        }
    }
}

impl<'a, T> SimSliceMut<'a, T> {
    /// `&a[range]` of a writable array, passed to a device function: a read-only view of
    /// those elements (see [`SimSlice::sub`]).
    pub fn sub(&self, range: impl RangeBounds<usize>) -> SimSlice<'a, T> {
        self.read_only().sub(range)
    }

    /// `&mut a[range]` passed to a device function: a writable view of those elements.
    pub fn sub_mut(&self, range: impl RangeBounds<usize>) -> SimSliceMut<'a, T> {
        let (start, end) = sub_range(range, self.extents[0], self.kernel, self.names[0]);
        SimSliceMut {
            ptr: self.ptr.wrapping_add(start),
            extents: [end - start],
            kernel: self.kernel,
            names: self.names,
            _borrow: PhantomData,
        }
    }

    /// A writable view of a host slice.
    pub(crate) fn from_host(data: &'a mut [T]) -> Self {
        SimSliceMut {
            ptr: data.as_mut_ptr(),
            extents: [data.len()],
            kernel: "",
            names: [""],
            _borrow: PhantomData,
        }
    }

    /// A view of `len` elements at `ptr`, reported as `param` of `kernel`.
    ///
    /// # Safety
    ///
    /// `ptr` must hold `len` elements, valid for `'a`, accessed only through views.
    pub(crate) unsafe fn from_raw(
        ptr: *mut T,
        len: usize,
        kernel: &'static str,
        param: &'static str,
    ) -> Self {
        SimSliceMut {
            ptr,
            extents: [len],
            kernel,
            names: [param],
            _borrow: PhantomData,
        }
    }

    /// The same view, read-only.
    pub(crate) fn read_only(self) -> SimSlice<'a, T> {
        SimSlice {
            ptr: self.ptr,
            extents: self.extents,
            kernel: self.kernel,
            names: self.names,
            _borrow: PhantomData,
        }
    }
}

/// What a `#[gpu_device]` function's `&[T]` parameter accepts: a slice, `Vec` or array on
/// the host, or an array parameter (or 1-D shared array) of a simulated kernel. The
/// function's body sees the view.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a device function's `&[{T}]` parameter",
    label = "pass a slice of `{T}` (`&v[..]`), or an array parameter of the kernel"
)]
pub trait DeviceFnArray<'a, T> {
    /// The view the function's body indexes.
    fn view(self) -> SimSlice<'a, T>;
}

/// What a `#[gpu_device]` function's `&mut [T]` parameter accepts: a mutable slice, `Vec`
/// or array on the host, or a `&mut [T]` parameter (or shared array) of a simulated kernel.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a device function's `&mut [{T}]` parameter",
    label = "pass a mutable slice of `{T}` (`&mut v[..]`), or a `&mut [{T}]` parameter of the kernel"
)]
pub trait DeviceFnArrayMut<'a, T> {
    /// The view the function's body indexes and writes.
    fn view(self) -> SimSliceMut<'a, T>;
}

impl<'a, T> DeviceFnArray<'a, T> for &'a [T] {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::from_host(self)
    }
}

impl<'a, T> DeviceFnArray<'a, T> for &'a mut [T] {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::from_host(self)
    }
}

impl<'a, T> DeviceFnArray<'a, T> for &'a Vec<T> {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::from_host(self)
    }
}

impl<'a, T, const N: usize> DeviceFnArray<'a, T> for &'a [T; N] {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::from_host(self)
    }
}

impl<'a, T> DeviceFnArray<'a, T> for SimSlice<'a, T> {
    fn view(self) -> SimSlice<'a, T> {
        self
    }
}

impl<'a, T> DeviceFnArray<'a, T> for SimSliceMut<'a, T> {
    /// A read-only view of a writable one (a kernel's `&mut [T]` passed to a device
    /// function's `&[T]`).
    fn view(self) -> SimSlice<'a, T> {
        self.read_only()
    }
}

impl<'a, T> DeviceFnArrayMut<'a, T> for &'a mut [T] {
    fn view(self) -> SimSliceMut<'a, T> {
        SimSliceMut::from_host(self)
    }
}

impl<'a, T> DeviceFnArrayMut<'a, T> for &'a mut Vec<T> {
    fn view(self) -> SimSliceMut<'a, T> {
        SimSliceMut::from_host(self)
    }
}

impl<'a, T, const N: usize> DeviceFnArrayMut<'a, T> for &'a mut [T; N] {
    fn view(self) -> SimSliceMut<'a, T> {
        SimSliceMut::from_host(self)
    }
}

impl<'a, T> DeviceFnArrayMut<'a, T> for SimSliceMut<'a, T> {
    fn view(self) -> SimSliceMut<'a, T> {
        self
    }
}

/// The traits a device function's 2-D or 3-D array parameter takes (see
/// [`DeviceFnArray2`]): a kernel's view of that rank, writable or not for a read-only
/// parameter, writable for a writable one. The host has no view of a device array, so
/// these functions are called from kernels only.
macro_rules! device_fn_views {
    (
        $read:ident, $write:ident,
        $(#[$read_doc:meta])* $trait_read:ident, $read_message:literal, $read_label:literal,
        $(#[$write_doc:meta])* $trait_write:ident, $write_message:literal, $write_label:literal
    ) => {
        $(#[$read_doc])*
        #[diagnostic::on_unimplemented(message = $read_message, label = $read_label)]
        pub trait $trait_read<'a, T> {
            /// The view the function's body indexes.
            fn view(self) -> $read<'a, T>;
        }

        $(#[$write_doc])*
        #[diagnostic::on_unimplemented(message = $write_message, label = $write_label)]
        pub trait $trait_write<'a, T> {
            /// The view the function's body indexes and writes.
            fn view(self) -> $write<'a, T>;
        }

        impl<'a, T> $trait_read<'a, T> for $read<'a, T> {
            fn view(self) -> $read<'a, T> {
                self
            }
        }

        impl<'a, T> $trait_read<'a, T> for $write<'a, T> {
            /// A read-only view of a writable one.
            fn view(self) -> $read<'a, T> {
                $read {
                    ptr: self.ptr,
                    extents: self.extents,
                    kernel: self.kernel,
                    names: self.names,
                    _borrow: PhantomData,
                }
            }
        }

        impl<'a, T> $trait_write<'a, T> for $write<'a, T> {
            fn view(self) -> $write<'a, T> {
                self
            }
        }
    };
}

device_fn_views!(
    SimArray2, SimArray2Mut,
    /// What a `#[gpu_device]` function's `&DeviceArray2<T>` parameter accepts: a `DeviceArray2`
    /// parameter (`&` or `&mut`) of the simulated kernel or device function calling it.
    DeviceFnArray2,
    "`{Self}` cannot be passed to a device function's `&DeviceArray2<{T}>` parameter",
    "pass a `DeviceArray2<{T}>` parameter of the kernel; device functions taking 2-D arrays are called from kernels, not from the host",
    /// What a `#[gpu_device]` function's `&mut DeviceArray2<T>` parameter accepts: a
    /// `&mut DeviceArray2` parameter of the simulated kernel or device function calling it.
    DeviceFnArray2Mut,
    "`{Self}` cannot be passed to a device function's `&mut DeviceArray2<{T}>` parameter",
    "pass a `&mut DeviceArray2<{T}>` parameter of the kernel; device functions taking 2-D arrays are called from kernels, not from the host"
);
device_fn_views!(
    SimArray3, SimArray3Mut,
    /// What a `#[gpu_device]` function's `&DeviceArray3<T>` parameter accepts: a `DeviceArray3`
    /// parameter (`&` or `&mut`) of the simulated kernel or device function calling it.
    DeviceFnArray3,
    "`{Self}` cannot be passed to a device function's `&DeviceArray3<{T}>` parameter",
    "pass a `DeviceArray3<{T}>` parameter of the kernel; device functions taking 3-D arrays are called from kernels, not from the host",
    /// What a `#[gpu_device]` function's `&mut DeviceArray3<T>` parameter accepts: a
    /// `&mut DeviceArray3` parameter of the simulated kernel or device function calling it.
    DeviceFnArray3Mut,
    "`{Self}` cannot be passed to a device function's `&mut DeviceArray3<{T}>` parameter",
    "pass a `&mut DeviceArray3<{T}>` parameter of the kernel; device functions taking 3-D arrays are called from kernels, not from the host"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_views_read_write_and_check_like_slices() {
        let mut v = vec![1.0f32, 2.0, 3.0];
        let w = SimSliceMut::from_host(&mut v);
        w.set(1, 5.0);
        assert_eq!(w.get(1), 5.0);
        let copy = w;
        copy.set(2, 7.0);
        assert_eq!(v, [1.0, 5.0, 7.0]);
        let r = SimSlice::from_host(&v);
        let e = std::panic::catch_unwind(|| r.get(3));
        assert!(e.is_err());
    }
}
