//! The simulator's stand-ins for a kernel's `&[T]` and `&mut [T]` parameters.
//!
//! They index like slices but check every index and report a violation with the kernel's
//! and parameter's names. They are handles, copied into every simulated thread; the
//! simulator runs threads one at a time, so no two threads touch the memory at once.
//!
//! They are also what a `#[gpu_device]` function's array parameters are inside its Rust
//! body ([`ArrayArg`], [`ArrayArgMut`]): made from a simulated kernel's parameter, or from
//! a host slice, where an index out of range panics as a slice's does. They are `Copy`
//! and index mutably, which is sound only for kernel-language code (it forms no
//! references); hence they stay out of the public API.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

use super::SimFault;

/// A kernel's `&[T]` parameter in the simulator.
pub struct SimSlice<'a, T> {
    ptr: *const T,
    len: usize,
    kernel: &'static str,
    param: &'static str,
    _borrow: PhantomData<&'a [T]>,
}

/// A kernel's `&mut [T]` parameter in the simulator.
pub struct SimSliceMut<'a, T> {
    ptr: *mut T,
    len: usize,
    kernel: &'static str,
    param: &'static str,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: handles to device memory that the simulated threads share, as on the GPU;
// concurrent access is ordered by the kernel's barriers and atomics. The elements move
// between threads, so they must be `Send + Sync` themselves (every dtype is).
unsafe impl<T: Send + Sync> Send for SimSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for SimSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Send for SimSliceMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for SimSliceMut<'_, T> {}

impl<T> Clone for SimSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimSlice<'_, T> {}
impl<T> Clone for SimSliceMut<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimSliceMut<'_, T> {}

#[cold]
#[inline(never)]
fn out_of_bounds(kernel: &'static str, param: &'static str, index: usize, len: usize) -> ! {
    if kernel.is_empty() {
        // A view of a host slice: fail as the slice would.
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

impl<'a, T> SimSlice<'a, T> {
    /// Wrap `data` as parameter `param` of `kernel`.
    pub fn new(data: &'a [T], kernel: &'static str, param: &'static str) -> Self {
        SimSlice {
            ptr: data.as_ptr(),
            len: data.len(),
            kernel,
            param,
            _borrow: PhantomData,
        }
    }

    /// The number of elements, as `slice.len()`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<'a, T> SimSliceMut<'a, T> {
    /// Wrap `data` as parameter `param` of `kernel`.
    pub fn new(data: &'a mut [T], kernel: &'static str, param: &'static str) -> Self {
        SimSliceMut {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            kernel,
            param,
            _borrow: PhantomData,
        }
    }

    /// The number of elements, as `slice.len()`.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of element `index`, checked (for atomics).
    #[doc(hidden)]
    pub fn element(&self, index: usize) -> *mut T {
        if index >= self.len {
            out_of_bounds(self.kernel, self.param, index, self.len);
        }
        // SAFETY: `index < len`.
        unsafe { self.ptr.add(index) }
    }
}

impl<T> Index<usize> for SimSlice<'_, T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        if index >= self.len {
            out_of_bounds(self.kernel, self.param, index, self.len);
        }
        // SAFETY: `index < len`, and the data outlives `'a` by construction.
        unsafe { &*self.ptr.add(index) }
    }
}

impl<T> Index<usize> for SimSliceMut<'_, T> {
    type Output = T;
    fn index(&self, index: usize) -> &T {
        if index >= self.len {
            out_of_bounds(self.kernel, self.param, index, self.len);
        }
        // SAFETY: as above.
        unsafe { &*self.ptr.add(index) }
    }
}

impl<T> IndexMut<usize> for SimSliceMut<'_, T> {
    fn index_mut(&mut self, index: usize) -> &mut T {
        if index >= self.len {
            out_of_bounds(self.kernel, self.param, index, self.len);
        }
        // SAFETY: `index < len`; the simulator runs one thread at a time, so no other
        // reference to this element is live while this one is.
        unsafe { &mut *self.ptr.add(index) }
    }
}

/// A kernel's `&Array2<T>` parameter in the simulator.
pub struct SimArray2<'a, T> {
    flat: SimSlice<'a, T>,
    rows: usize,
    cols: usize,
    row_param: &'static str,
    col_param: &'static str,
}

/// A kernel's `&mut Array2<T>` parameter in the simulator.
pub struct SimArray2Mut<'a, T> {
    flat: SimSliceMut<'a, T>,
    rows: usize,
    cols: usize,
    row_param: &'static str,
    col_param: &'static str,
}

fn check2(
    kernel: &'static str,
    (r, c): (usize, usize),
    rows: usize,
    cols: usize,
    rp: &'static str,
    cp: &'static str,
) -> usize {
    if r >= rows {
        out_of_bounds(kernel, rp, r, rows);
    }
    if c >= cols {
        out_of_bounds(kernel, cp, c, cols);
    }
    r * cols + c
}

macro_rules! array2 {
    ($ty:ident, $flat:ident, $data:ty) => {
        impl<T> Clone for $ty<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $ty<'_, T> {}
        impl<'a, T> $ty<'a, T> {
            /// Wrap a row-major `rows x cols` array as parameter `param` of `kernel`.
            pub fn new(
                data: $data,
                rows: usize,
                cols: usize,
                kernel: &'static str,
                params: [&'static str; 2],
            ) -> Self {
                $ty {
                    flat: $flat::new(data, kernel, params[0]),
                    rows,
                    cols,
                    row_param: params[0],
                    col_param: params[1],
                }
            }
            /// Rows, as `a.rows()`.
            pub fn rows(&self) -> usize {
                self.rows
            }
            /// `(rows, cols)`, as `a.shape()`.
            pub fn shape(&self) -> (usize, usize) {
                (self.rows, self.cols)
            }
            /// Columns, as `a.cols()`.
            pub fn cols(&self) -> usize {
                self.cols
            }
            /// Elements, as `a.len()`.
            pub fn len(&self) -> usize {
                self.rows * self.cols
            }
            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            fn flat_index(&self, at: (usize, usize)) -> usize {
                check2(
                    self.flat.kernel,
                    at,
                    self.rows,
                    self.cols,
                    self.row_param,
                    self.col_param,
                )
            }
        }
        impl<T> Index<(usize, usize)> for $ty<'_, T> {
            type Output = T;
            fn index(&self, at: (usize, usize)) -> &T {
                let i = self.flat_index(at);
                &self.flat[i]
            }
        }
    };
}

array2!(SimArray2, SimSlice, &'a [T]);
array2!(SimArray2Mut, SimSliceMut, &'a mut [T]);

impl<T> IndexMut<(usize, usize)> for SimArray2Mut<'_, T> {
    fn index_mut(&mut self, at: (usize, usize)) -> &mut T {
        let i = self.flat_index(at);
        &mut self.flat[i]
    }
}

impl<T> SimArray2Mut<'_, T> {
    /// The address of element `at`, checked (for atomics).
    #[doc(hidden)]
    pub fn element2(&self, at: (usize, usize)) -> *mut T {
        let i = self.flat_index(at);
        self.flat.element(i)
    }
}

/// A kernel's `&Array3<T>` parameter in the simulator.
pub struct SimArray3<'a, T> {
    flat: SimSlice<'a, T>,
    shape: [usize; 3],
    axes: [&'static str; 3],
}

/// A kernel's `&mut Array3<T>` parameter in the simulator.
pub struct SimArray3Mut<'a, T> {
    flat: SimSliceMut<'a, T>,
    shape: [usize; 3],
    axes: [&'static str; 3],
}

fn check3(
    kernel: &'static str,
    at: (usize, usize, usize),
    shape: [usize; 3],
    axes: [&'static str; 3],
) -> usize {
    let idx = [at.0, at.1, at.2];
    for k in 0..3 {
        if idx[k] >= shape[k] {
            out_of_bounds(kernel, axes[k], idx[k], shape[k]);
        }
    }
    (idx[0] * shape[1] + idx[1]) * shape[2] + idx[2]
}

macro_rules! array3 {
    ($ty:ident, $flat:ident, $data:ty) => {
        impl<T> Clone for $ty<'_, T> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<T> Copy for $ty<'_, T> {}
        impl<'a, T> $ty<'a, T> {
            /// Wrap a row-major array of `shape` as a parameter of `kernel`.
            pub fn new(
                data: $data,
                shape: [usize; 3],
                kernel: &'static str,
                axes: [&'static str; 3],
            ) -> Self {
                $ty {
                    flat: $flat::new(data, kernel, axes[0]),
                    shape,
                    axes,
                }
            }
            /// Elements, as `a.len()`.
            pub fn len(&self) -> usize {
                self.shape.iter().product()
            }
            /// Whether there are no elements.
            pub fn is_empty(&self) -> bool {
                self.len() == 0
            }
            /// The extents, as `a.shape()`.
            pub fn shape(&self) -> (usize, usize, usize) {
                (self.shape[0], self.shape[1], self.shape[2])
            }
            fn flat_index(&self, at: (usize, usize, usize)) -> usize {
                check3(self.flat.kernel, at, self.shape, self.axes)
            }
        }
        impl<T> Index<(usize, usize, usize)> for $ty<'_, T> {
            type Output = T;
            fn index(&self, at: (usize, usize, usize)) -> &T {
                let i = self.flat_index(at);
                &self.flat[i]
            }
        }
    };
}

array3!(SimArray3, SimSlice, &'a [T]);
array3!(SimArray3Mut, SimSliceMut, &'a mut [T]);

impl<T> IndexMut<(usize, usize, usize)> for SimArray3Mut<'_, T> {
    fn index_mut(&mut self, at: (usize, usize, usize)) -> &mut T {
        let i = self.flat_index(at);
        &mut self.flat[i]
    }
}

impl<T> SimArray3Mut<'_, T> {
    /// The address of element `at`, checked (for atomics).
    #[doc(hidden)]
    pub fn element3(&self, at: (usize, usize, usize)) -> *mut T {
        let i = self.flat_index(at);
        self.flat.element(i)
    }
}

/// What a `#[gpu_device]` function's `&[T]` parameter accepts: a slice, `Vec` or array on
/// the host, or an array parameter of a simulated kernel. Implemented here only; the
/// function's body sees the result of [`ArrayArg::view`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a device function's `&[{T}]` parameter",
    label = "pass a slice of `{T}` (`&v[..]`), or an array parameter of the kernel"
)]
pub trait ArrayArg<'a, T> {
    /// The view the function's body indexes.
    fn view(self) -> SimSlice<'a, T>;
}

/// What a `#[gpu_device]` function's `&mut [T]` parameter accepts: a mutable slice, `Vec`
/// or array on the host, or a `&mut [T]` parameter of a simulated kernel.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a device function's `&mut [{T}]` parameter",
    label = "pass a mutable slice of `{T}` (`&mut v[..]`), or a `&mut [{T}]` parameter of the kernel"
)]
pub trait ArrayArgMut<'a, T> {
    /// The view the function's body indexes and writes.
    fn view(self) -> SimSliceMut<'a, T>;
}

impl<'a, T> SimSliceMut<'a, T> {
    /// A view of `len` elements at `ptr`, reported as `param` of `kernel`.
    ///
    /// # Safety
    ///
    /// `ptr` must hold `len` elements, valid for `'a`, used only by simulated threads.
    pub(crate) unsafe fn from_raw(
        ptr: *mut T,
        len: usize,
        kernel: &'static str,
        param: &'static str,
    ) -> Self {
        SimSliceMut {
            ptr,
            len,
            kernel,
            param,
            _borrow: PhantomData,
        }
    }
}

impl<'a, T> ArrayArg<'a, T> for &'a [T] {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::new(self, "", "")
    }
}

impl<'a, T> ArrayArg<'a, T> for &'a mut [T] {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::new(self, "", "")
    }
}

impl<'a, T> ArrayArg<'a, T> for &'a Vec<T> {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::new(self, "", "")
    }
}

impl<'a, T, const N: usize> ArrayArg<'a, T> for &'a [T; N] {
    fn view(self) -> SimSlice<'a, T> {
        SimSlice::new(self, "", "")
    }
}

impl<'a, T> ArrayArg<'a, T> for SimSlice<'a, T> {
    fn view(self) -> SimSlice<'a, T> {
        self
    }
}

impl<'a, T> ArrayArg<'a, T> for SimSliceMut<'a, T> {
    /// A read-only view of a writable one (a kernel's `&mut [T]` passed to a device
    /// function's `&[T]`).
    fn view(self) -> SimSlice<'a, T> {
        SimSlice {
            ptr: self.ptr,
            len: self.len,
            kernel: self.kernel,
            param: self.param,
            _borrow: PhantomData,
        }
    }
}

impl<'a, T> ArrayArgMut<'a, T> for &'a mut [T] {
    fn view(self) -> SimSliceMut<'a, T> {
        SimSliceMut::new(self, "", "")
    }
}

impl<'a, T> ArrayArgMut<'a, T> for &'a mut Vec<T> {
    fn view(self) -> SimSliceMut<'a, T> {
        SimSliceMut::new(self, "", "")
    }
}

impl<'a, T, const N: usize> ArrayArgMut<'a, T> for &'a mut [T; N] {
    fn view(self) -> SimSliceMut<'a, T> {
        SimSliceMut::new(self, "", "")
    }
}

impl<'a, T> ArrayArgMut<'a, T> for SimSliceMut<'a, T> {
    fn view(self) -> SimSliceMut<'a, T> {
        self
    }
}
