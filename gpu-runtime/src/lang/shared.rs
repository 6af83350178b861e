//! Shared memory of the kernel language: arrays visible to every thread of a block
//! (Numba's `cuda.shared.array`).
//!
//! `let mut tile = shared_array::<f32, 256>();` declares `__shared__ float tile[256];`,
//! `shared_array_2d::<f32, 16, 16>()` a two-dimensional one indexed `tile[(row, col)]`,
//! and `dynamic_shared_array::<f32>()` the block's dynamic shared memory, sized by the
//! launch's shared-bytes argument (`extern __shared__`). In the simulator each
//! declaration gets one zeroed allocation per block, shared by the block's threads, every
//! index is checked, and elements are read and written by value (`s.get(i)`,
//! `s.set(i, v)`, which the attribute writes for `s[i]` and `s[i] = v`) with atomic
//! accesses, as the simulator's array views are.

use std::marker::PhantomData;
use std::panic::Location;

use crate::backend::sim::views::{load, store};
use crate::backend::sim::{
    shared_out_of_bounds, with_block, DeviceFnArray, DeviceFnArrayMut, SimSlice, SimSliceMut,
};
use crate::dtype::Element;

/// A block's shared array of `N` elements.
#[derive(Debug)]
pub struct SharedArray<T, const N: usize> {
    ptr: *mut T,
    name: &'static str,
    _t: PhantomData<T>,
}

/// A block's shared `R x C` array, row-major, indexed `a[(row, col)]`.
#[derive(Debug)]
pub struct SharedArray2<T, const R: usize, const C: usize> {
    ptr: *mut T,
    name: &'static str,
    _t: PhantomData<T>,
}

/// The block's dynamic shared memory viewed as `T`s.
#[derive(Debug)]
pub struct DynamicSharedArray<T> {
    ptr: *mut T,
    len: usize,
    name: &'static str,
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

/// The bytes of a shared array of `elements` `T`s, refused past the 48 KB of static
/// shared memory a block may have (the attribute refuses such constants at compile time).
fn shared_bytes<T>(elements: Option<usize>) -> usize {
    const LIMIT: usize = 48 * 1024;
    match elements.and_then(|n| n.checked_mul(std::mem::size_of::<T>())) {
        Some(b) if b <= LIMIT => b,
        _ => panic!(
            "a shared array of more than {LIMIT} bytes: a block's static shared memory is \
             at most {LIMIT} bytes"
        ),
    }
}

std::thread_local! {
    /// The number the kernel's translation gave the shared declaration about to run (see
    /// [`shared_declaration`]); `u32::MAX` when none was given.
    static DECLARATION: std::cell::Cell<u32> = const { std::cell::Cell::new(u32::MAX) };
}

/// Called by a simulated kernel right before each shared-array declaration with the
/// declaration's number in its function: two declarations that share a source location
/// (made by one macro) are still two arrays, as on the GPU. Not a public API.
#[doc(hidden)]
pub fn shared_declaration(number: u32) {
    DECLARATION.with(|d| d.set(number));
}

/// The number given to the declaration now running, taken.
fn declaration() -> u32 {
    DECLARATION.with(|d| d.replace(u32::MAX))
}

/// Declare a shared array of `N` elements (`__shared__ T a[N];`).
#[track_caller]
pub fn shared_array<T: Element, const N: usize>() -> SharedArray<T, N> {
    let site = Location::caller();
    let bytes = shared_bytes::<T>(Some(N));
    let ptr = with_block(|b| b.shared_array(site, declaration(), bytes)) as *mut T;
    SharedArray {
        ptr,
        name: "a shared array",
        _t: PhantomData,
    }
}

/// Declare a shared `R x C` array (`__shared__ T a[R][C];`).
#[track_caller]
pub fn shared_array_2d<T: Element, const R: usize, const C: usize>() -> SharedArray2<T, R, C> {
    let site = Location::caller();
    let bytes = shared_bytes::<T>(R.checked_mul(C));
    let ptr = with_block(|b| b.shared_array(site, declaration(), bytes)) as *mut T;
    SharedArray2 {
        ptr,
        name: "a shared array",
        _t: PhantomData,
    }
}

/// The block's dynamic shared memory as `T`s (`extern __shared__ T a[];`); its length is
/// the launch's shared-bytes argument divided by the size of `T`.
pub fn dynamic_shared_array<T: Element>() -> DynamicSharedArray<T> {
    let (ptr, bytes) = with_block(|b| b.dynamic_shared());
    DynamicSharedArray {
        ptr: ptr as *mut T,
        len: bytes / std::mem::size_of::<T>(),
        name: "a shared array",
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
            shared_out_of_bounds(self.name, i, N);
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
            shared_out_of_bounds(self.name, r, R);
        }
        if c >= C {
            shared_out_of_bounds(self.name, c, C);
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
            shared_out_of_bounds(self.name, i, self.len);
        }
        // SAFETY: `i < len`, within the block's dynamic allocation.
        unsafe { self.ptr.add(i) }
    }
}

macro_rules! by_value {
    ([$($decl:tt)*] $ty:ty, $idx:ty) => {
        impl<$($decl)*> $ty {
            /// The same array, named `name` in errors (the attribute names each
            /// declaration).
            #[doc(hidden)]
            pub fn __named(mut self, name: &'static str) -> Self {
                self.name = name;
                self
            }
            /// The element at `i`, checked.
            #[inline]
            pub fn get(&self, i: $idx) -> T {
                // SAFETY: `element` checked the index; the memory lives for the block.
                unsafe { load(self.element(i)) }
            }
            /// Write `value` at `i`, checked. Races between threads are the kernel's to
            /// order (with barriers); a racing access reads one of the values written.
            #[inline]
            pub fn set(&self, i: $idx, value: T) {
                // SAFETY: as above.
                unsafe { store(self.element(i), value) }
            }
            /// `f` called on the element at `i`, checked, and the parts it changed written
            /// back: what `s[i].m(..)` is in the simulator for a method `m` of the
            /// element's type.
            #[inline]
            pub fn with_elem<Out>(&self, i: $idx, f: impl FnOnce(&mut T) -> Out) -> Out {
                // SAFETY: `element` checked the index; the memory lives for the block.
                unsafe { crate::backend::sim::views::call_on_element(self.element(i), f) }
            }
            /// Write `value` into the field `field` picks of the struct at `i`
            /// (`|e| &mut e.pos.x`), checked: what `s[i].pos.x = v` is in the simulator.
            /// Only that field's bytes are written.
            #[inline]
            pub fn set_field_by<F: Element>(
                &self,
                i: $idx,
                field: impl FnOnce(&mut T) -> &mut F,
                value: F,
            ) {
                let offset = crate::backend::sim::views::field_offset(field);
                // SAFETY: `element` checked the index; `store_field` writes only the
                // bytes of a field of `F` that starts at `offset` (it panics otherwise).
                unsafe { crate::backend::sim::views::store_field(self.element(i), offset, value) }
            }
            /// The element at `i`, read without a check on the GPU (the simulator checks
            /// anyway): `unsafe { s.get_unchecked(i) }`.
            ///
            /// # Safety
            ///
            /// `i` must be in range; on the GPU an index out of range reads memory that is
            /// not the array's.
            #[inline]
            pub unsafe fn get_unchecked(&self, i: $idx) -> T {
                self.get(i)
            }
            /// The element at `i`, to be written without a check on the GPU (the
            /// simulator checks anyway): `unsafe { *s.get_unchecked_mut(i) = v }`.
            ///
            /// # Safety
            ///
            /// `i` must be in range; on the GPU an index out of range writes memory that
            /// is not the array's.
            #[inline]
            pub unsafe fn get_unchecked_mut(&self, i: $idx) -> crate::backend::sim::views::ElementMut<'_, T> {
                crate::backend::sim::views::ElementMut::new(self.element(i))
            }
        }
    };
}

by_value!([T: Element, const N: usize] SharedArray<T, N>, usize);
by_value!([T: Element, const R: usize, const C: usize] SharedArray2<T, R, C>, (usize, usize));
by_value!([T: Element] DynamicSharedArray<T>, usize);

/// A shared array passed whole to a device function: a view of the block's memory,
/// reported as `a shared array` of the running kernel.
fn shared_view<'a, T>(ptr: *mut T, len: usize, name: &'static str) -> SimSliceMut<'a, T> {
    let kernel = with_block(|b| b.kernel);
    // SAFETY: `ptr` is the block's allocation of `len` elements, alive while the block
    // runs, which is as long as a kernel body (and so a device function it calls) does.
    unsafe { SimSliceMut::from_raw(ptr, len, kernel, name) }
}

impl<'a, T, const N: usize> DeviceFnArray<'a, T> for SharedArray<T, N> {
    fn view(self) -> SimSlice<'a, T> {
        shared_view(self.ptr, N, self.name).read_only()
    }
}

impl<'a, T, const N: usize> DeviceFnArrayMut<'a, T> for SharedArray<T, N> {
    fn view(self) -> SimSliceMut<'a, T> {
        shared_view(self.ptr, N, self.name)
    }
}

impl<'a, T> DeviceFnArray<'a, T> for DynamicSharedArray<T> {
    fn view(self) -> SimSlice<'a, T> {
        shared_view(self.ptr, self.len, self.name).read_only()
    }
}

impl<'a, T> DeviceFnArrayMut<'a, T> for DynamicSharedArray<T> {
    fn view(self) -> SimSliceMut<'a, T> {
        shared_view(self.ptr, self.len, self.name)
    }
}
