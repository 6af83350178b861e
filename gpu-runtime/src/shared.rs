//! Shared memory of the kernel language: arrays visible to every thread of a block
//! (Numba's `cuda.shared.array`).
//!
//! `let mut tile = shared_array::<f32, 256>();` declares `__shared__ float tile[256];`,
//! `shared_array_2d::<f32, 16, 16>()` a two-dimensional one indexed `tile[(row, col)]`,
//! and `dynamic_shared_array::<f32>()` the block's dynamic shared memory, sized by the
//! launch's shared-bytes argument (`extern __shared__`). In the simulator each
//! declaration gets one zeroed allocation per block, shared by the block's threads, and
//! every index is checked.

use std::marker::PhantomData;
use std::ops::{Index, IndexMut};
use std::panic::Location;

use crate::dtype::Dtype;
use crate::sim::{shared_out_of_bounds, with_block, ArrayArg, ArrayArgMut, SimSlice, SimSliceMut};

/// A block's shared array of `N` elements.
pub struct SharedArray<T, const N: usize> {
    ptr: *mut T,
    _t: PhantomData<T>,
}

/// A block's shared `R x C` array, row-major, indexed `a[(row, col)]`.
pub struct SharedArray2<T, const R: usize, const C: usize> {
    ptr: *mut T,
    _t: PhantomData<T>,
}

/// The block's dynamic shared memory viewed as `T`s.
pub struct DynamicSharedArray<T> {
    ptr: *mut T,
    len: usize,
}

macro_rules! handle {
    ([$($decl:tt)*] $ty:ty) => {
        impl<$($decl)*> Clone for $ty {
            fn clone(&self) -> Self { *self }
        }
        impl<$($decl)*> Copy for $ty {}
        // SAFETY: a handle to memory the block's threads share, as on the GPU; concurrent
        // access is ordered by the kernel's barriers and atomics.
        unsafe impl<$($decl)*> Send for $ty {}
        // SAFETY: as above.
        unsafe impl<$($decl)*> Sync for $ty {}
    };
}

handle!([T, const N: usize] SharedArray<T, N>);
handle!([T, const R: usize, const C: usize] SharedArray2<T, R, C>);
handle!([T] DynamicSharedArray<T>);

/// Declare a shared array of `N` elements (`__shared__ T a[N];`).
#[track_caller]
pub fn shared_array<T: Dtype, const N: usize>() -> SharedArray<T, N> {
    let site = Location::caller();
    let ptr = with_block(|b| b.shared_array(site, N * std::mem::size_of::<T>())) as *mut T;
    SharedArray {
        ptr,
        _t: PhantomData,
    }
}

/// Declare a shared `R x C` array (`__shared__ T a[R][C];`).
#[track_caller]
pub fn shared_array_2d<T: Dtype, const R: usize, const C: usize>() -> SharedArray2<T, R, C> {
    let site = Location::caller();
    let ptr = with_block(|b| b.shared_array(site, R * C * std::mem::size_of::<T>())) as *mut T;
    SharedArray2 {
        ptr,
        _t: PhantomData,
    }
}

/// The block's dynamic shared memory as `T`s (`extern __shared__ T a[];`); its length is
/// the launch's shared-bytes argument divided by the size of `T`.
pub fn dynamic_shared_array<T: Dtype>() -> DynamicSharedArray<T> {
    let (ptr, bytes) = with_block(|b| b.dynamic_shared());
    DynamicSharedArray {
        ptr: ptr as *mut T,
        len: bytes / std::mem::size_of::<T>(),
    }
}

impl<T, const N: usize> SharedArray<T, N> {
    /// `N`.
    pub fn len(&self) -> usize {
        N
    }
    /// Whether `N` is 0.
    pub fn is_empty(&self) -> bool {
        N == 0
    }
    #[doc(hidden)]
    pub fn element(&self, i: usize) -> *mut T {
        if i >= N {
            shared_out_of_bounds(i, N);
        }
        // SAFETY: `i < N`, within the block's allocation of `N` elements.
        unsafe { self.ptr.add(i) }
    }
}

impl<T, const R: usize, const C: usize> SharedArray2<T, R, C> {
    /// `(R, C)`.
    pub fn shape(&self) -> (usize, usize) {
        (R, C)
    }
    #[doc(hidden)]
    pub fn element(&self, (r, c): (usize, usize)) -> *mut T {
        if r >= R {
            shared_out_of_bounds(r, R);
        }
        if c >= C {
            shared_out_of_bounds(c, C);
        }
        // SAFETY: both indices are in range of the `R * C` allocation.
        unsafe { self.ptr.add(r * C + c) }
    }
}

impl<T> DynamicSharedArray<T> {
    /// How many `T`s the launch's dynamic shared memory holds.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the launch gave no dynamic shared memory.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[doc(hidden)]
    pub fn element(&self, i: usize) -> *mut T {
        if i >= self.len {
            shared_out_of_bounds(i, self.len);
        }
        // SAFETY: `i < len`, within the block's dynamic allocation.
        unsafe { self.ptr.add(i) }
    }
}

macro_rules! indexing {
    ([$($decl:tt)*] $ty:ty, $idx:ty) => {
        impl<$($decl)*> Index<$idx> for $ty {
            type Output = T;
            fn index(&self, i: $idx) -> &T {
                // SAFETY: `element` checked the index; the memory lives for the block.
                unsafe { &*self.element(i) }
            }
        }
        impl<$($decl)*> IndexMut<$idx> for $ty {
            fn index_mut(&mut self, i: $idx) -> &mut T {
                // SAFETY: as above; races between threads are the kernel's to order.
                unsafe { &mut *self.element(i) }
            }
        }
    };
}

indexing!([T, const N: usize] SharedArray<T, N>, usize);
indexing!([T, const R: usize, const C: usize] SharedArray2<T, R, C>, (usize, usize));
indexing!([T] DynamicSharedArray<T>, usize);

/// A shared array passed whole to a device function: a view of the block's memory,
/// reported as `a shared array` of the running kernel.
fn shared_view<'a, T>(ptr: *mut T, len: usize) -> SimSliceMut<'a, T> {
    let kernel = with_block(|b| b.kernel);
    // SAFETY: `ptr` is the block's allocation of `len` elements, alive while the block
    // runs, which is as long as a kernel body (and so a device function it calls) does.
    unsafe { SimSliceMut::from_raw(ptr, len, kernel, "a shared array") }
}

impl<'a, T, const N: usize> ArrayArg<'a, T> for SharedArray<T, N> {
    fn view(self) -> SimSlice<'a, T> {
        ArrayArg::view(shared_view(self.ptr, N))
    }
}

impl<'a, T, const N: usize> ArrayArgMut<'a, T> for SharedArray<T, N> {
    fn view(self) -> SimSliceMut<'a, T> {
        shared_view(self.ptr, N)
    }
}

impl<'a, T> ArrayArg<'a, T> for DynamicSharedArray<T> {
    fn view(self) -> SimSlice<'a, T> {
        ArrayArg::view(shared_view(self.ptr, self.len))
    }
}

impl<'a, T> ArrayArgMut<'a, T> for DynamicSharedArray<T> {
    fn view(self) -> SimSliceMut<'a, T> {
        shared_view(self.ptr, self.len)
    }
}
