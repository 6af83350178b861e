//! What a kernel's array parameters accept at launch.
//!
//! A `&[T]` parameter takes any `&impl SliceArg<T>` and a `&mut [T]` parameter any
//! `&mut impl SliceArgMut<T>`: a [`DeviceArray`] today, and views of a part of one. Both
//! traits are sealed: what a kernel is handed must be memory the runtime allocated, with
//! its true length, borrowed for the launch (shared for `&[T]`, exclusive for `&mut [T]`,
//! so `__restrict__` in the generated C is sound).

use std::marker::PhantomData;

use crate::backend::sim::{
    SimArray2, SimArray2Mut, SimArray3, SimArray3Mut, SimSlice, SimSliceMut,
};
use crate::dtype::{Dtype, DtypeKind, ElemKind, Element, GpuStruct, StructLayout};
use crate::host::array::Storage;
use crate::host::array::{DeviceArray, DeviceArray2, DeviceArray3};
use crate::host::device::Device;
use crate::keep_alive::KeepAlive;
use crate::launch::codes::{array_code, scalar_code, NO_CODE};

/// Implemented by the types the runtime accepts as kernel arrays, and no others.
pub trait Sealed {}

mod sealed {
    pub use super::Sealed;
}

/// What a kernel's `&[T]` parameter accepts: `&DeviceArray<T>` (and views of one).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed as a kernel's `&[{T}]` parameter",
    label = "expected a device array of `{T}`",
    note = "kernels take device memory: copy host data with `dev.to_device(&v)?`, and pass \
            `&array`"
)]
pub trait SliceArg<T: Element>: sealed::Sealed {
    #[doc(hidden)]
    fn __array(&self) -> ArrayParts<'_, T>;
}

/// What a kernel's `&mut [T]` parameter accepts: `&mut DeviceArray<T>` (and mutable views
/// of one).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed as a kernel's `&mut [{T}]` parameter",
    label = "expected a device array of `{T}`, borrowed mutably",
    note = "kernels take device memory: copy host data with `dev.to_device(&v)?`, and pass \
            `&mut array`"
)]
pub trait SliceArgMut<T: Element>: SliceArg<T> {
    #[doc(hidden)]
    fn __array_mut(&mut self) -> ArrayPartsMut<'_, T>;
}

/// An array argument taken apart for a launch: its device, its address and its extents,
/// borrowed from the array. Not a public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct ArrayParts<'a, T> {
    device: &'a Device,
    cuda_ptr: u64,
    sim_ptr: *const T,
    extents: [usize; 3],
    /// How many of `extents` are the array's (1, 2 or 3); the rest are 1.
    rank: u8,
    /// Bytes from the start of the array's allocation (a view's start), for alignment.
    offset: usize,
    /// The allocation's owner, which a recorded graph keeps.
    owner: &'a dyn KeepAlive,
    _borrow: PhantomData<&'a [T]>,
}

/// [`ArrayParts`] of an array borrowed mutably. Not a public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct ArrayPartsMut<'a, T> {
    device: &'a Device,
    cuda_ptr: u64,
    sim_ptr: *mut T,
    extents: [usize; 3],
    /// How many of `extents` are the array's (1, 2 or 3); the rest are 1.
    rank: u8,
    /// Bytes from the start of the array's allocation.
    offset: usize,
    /// The allocation's owner, which a recorded graph keeps.
    owner: &'a dyn KeepAlive,
    _borrow: PhantomData<&'a mut [T]>,
}

macro_rules! parts_methods {
    ($name:ident) => {
        impl<'a, T> $name<'a, T> {
            /// The device the array lives on.
            #[inline]
            pub fn device(&self) -> &'a Device {
                self.device
            }

            /// The device address (0 on the simulator).
            #[inline]
            pub fn device_ptr(&self) -> u64 {
                self.cuda_ptr
            }

            /// Extent `axis` (the length, for a 1-D array).
            #[inline]
            pub fn extent(&self, axis: usize) -> usize {
                self.extents[axis]
            }

            /// Where the array starts in its allocation, in bytes (0 but for a view);
            /// allocations start 256-byte aligned on a GPU.
            #[inline]
            pub fn offset_bytes(&self) -> usize {
                self.offset
            }

            /// The allocation's owner, for a launch a graph records.
            #[inline]
            pub fn owner(&self) -> &'a dyn KeepAlive {
                self.owner
            }
        }
    };
}

parts_methods!(ArrayParts);
parts_methods!(ArrayPartsMut);

impl<'a, T> ArrayParts<'a, T> {
    pub(crate) fn new(
        device: &'a Device,
        cuda_ptr: u64,
        sim_ptr: *const T,
        extents: [usize; 3],
        offset: usize,
        owner: &'a dyn KeepAlive,
        _borrow: PhantomData<&'a [T]>,
    ) -> Self {
        ArrayParts {
            device,
            cuda_ptr,
            sim_ptr,
            extents,
            rank: 1,
            offset,
            owner,
            _borrow,
        }
    }

    pub(crate) fn sim_parts(&self) -> (*const T, [usize; 3]) {
        (self.sim_ptr, self.extents)
    }
}

impl<'a, T> ArrayPartsMut<'a, T> {
    pub(crate) fn new(
        device: &'a Device,
        cuda_ptr: u64,
        sim_ptr: *mut T,
        extents: [usize; 3],
        offset: usize,
        owner: &'a dyn KeepAlive,
        _borrow: PhantomData<&'a mut [T]>,
    ) -> Self {
        ArrayPartsMut {
            device,
            cuda_ptr,
            sim_ptr,
            extents,
            rank: 1,
            offset,
            owner,
            _borrow,
        }
    }

    pub(crate) fn sim_parts_mut(&self) -> (*mut T, [usize; 3]) {
        (self.sim_ptr, self.extents)
    }
}

/// The simulator's views of a launch's arguments, as the launcher makes them.
macro_rules! views_of_parts {
    ($($name:ident, $rank:literal, $parts:ident, $get:ident;)*) => {$(
        impl<'a, T: Element> $name<'a, T> {
            /// The view of a launch's argument, reported as `names` of `kernel`. The parts
            /// must be of a simulator array (the launcher makes views only on the
            /// simulator); a GPU array's have no host memory, and panic here.
            pub fn new(
                parts: $parts<'a, T>,
                kernel: &'static str,
                names: [&'static str; $rank],
            ) -> Self {
                let (ptr, extents) = parts.$get();
                $name::of_parts(ptr, extents, kernel, names)
            }
        }
    )*};
}

views_of_parts! {
    SimSlice, 1, ArrayParts, sim_parts;
    SimArray2, 2, ArrayParts, sim_parts;
    SimArray3, 3, ArrayParts, sim_parts;
    SimSliceMut, 1, ArrayPartsMut, sim_parts_mut;
    SimArray2Mut, 2, ArrayPartsMut, sim_parts_mut;
    SimArray3Mut, 3, ArrayPartsMut, sim_parts_mut;
}

impl<T: Element> DeviceArray<T> {
    fn parts_with(&self, extents: [usize; 3], rank: u8) -> ArrayParts<'_, T> {
        let (cuda_ptr, sim_ptr) = match &self.storage {
            Storage::Cuda(c) => (c.ptr, std::ptr::null()),
            Storage::Sim(v) => (0, v.ptr().cast_const()),
        };
        ArrayParts {
            device: &self.device,
            cuda_ptr,
            sim_ptr,
            extents,
            rank,
            offset: 0,
            owner: self.storage.owner(),
            _borrow: PhantomData,
        }
    }

    fn parts_mut_with(&mut self, extents: [usize; 3], rank: u8) -> ArrayPartsMut<'_, T> {
        let (cuda_ptr, sim_ptr) = match &self.storage {
            Storage::Cuda(c) => (c.ptr, std::ptr::null_mut()),
            Storage::Sim(v) => (0, v.ptr()),
        };
        ArrayPartsMut {
            device: &self.device,
            cuda_ptr,
            sim_ptr,
            extents,
            rank,
            offset: 0,
            owner: self.storage.owner(),
            _borrow: PhantomData,
        }
    }
}

impl<T: Element> sealed::Sealed for DeviceArray<T> {}

impl<T: Element> SliceArg<T> for DeviceArray<T> {
    #[inline]
    fn __array(&self) -> ArrayParts<'_, T> {
        self.parts_with([self.len(), 1, 1], 1)
    }
}

impl<T: Element> SliceArgMut<T> for DeviceArray<T> {
    #[inline]
    fn __array_mut(&mut self) -> ArrayPartsMut<'_, T> {
        let len = self.len();
        self.parts_mut_with([len, 1, 1], 1)
    }
}

/// The parts of a 2-D array argument.
#[doc(hidden)]
#[inline]
pub fn array2<T: Element>(a: &DeviceArray2<T>) -> ArrayParts<'_, T> {
    let (r, c) = a.shape();
    a.flat().parts_with([r, c, 1], 2)
}

/// The parts of a writable 2-D array argument.
#[doc(hidden)]
#[inline]
pub fn array2_mut<T: Element>(a: &mut DeviceArray2<T>) -> ArrayPartsMut<'_, T> {
    let (r, c) = a.shape();
    a.flat_storage_mut().parts_mut_with([r, c, 1], 2)
}

/// The parts of a 3-D array argument.
#[doc(hidden)]
#[inline]
pub fn array3<T: Element>(a: &DeviceArray3<T>) -> ArrayParts<'_, T> {
    let (x, y, z) = a.shape();
    a.flat().parts_with([x, y, z], 3)
}

/// The parts of a writable 3-D array argument.
#[doc(hidden)]
#[inline]
pub fn array3_mut<T: Element>(a: &mut DeviceArray3<T>) -> ArrayPartsMut<'_, T> {
    let (x, y, z) = a.shape();
    a.flat_storage_mut().parts_mut_with([x, y, z], 3)
}

/// One argument of a launch, as the launcher hands it to the runtime: an array's parts
/// (its device, address, extents and element dtype, from a real array borrowed for the
/// launch) or a scalar's dtype and bits. The runtime checks every argument against the
/// kernel's parameters and its dtype signature before it packs them for the driver, so a
/// launcher cannot pass what the kernel's C does not expect. Neither `Clone` nor `Copy`:
/// a writable array's argument is made from its one exclusive borrow, so no array can be
/// passed twice where the kernel writes it (the C declares every array `__restrict__`).
/// Not a public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct Arg<'a> {
    pub(crate) value: ArgValue<'a>,
    /// The argument's kind in one number (`launch::codes`), for the
    /// launch path's quick comparison with what a loaded kernel's parameters expect.
    pub(crate) code: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum ArgValue<'a> {
    Array {
        device: &'a Device,
        ptr: u64,
        extents: [usize; 3],
        /// 1, 2 or 3: how many of `extents` are the array's.
        rank: u8,
        elem: ElemKind,
        mutable: bool,
        /// The allocation's owner, which a recorded graph keeps.
        owner: &'a dyn KeepAlive,
    },
    Scalar {
        kind: DtypeKind,
        /// The bits of its parts (`[bits, 0]`, or a complex number's `[re, im]`).
        bits: [u64; 2],
    },
    /// A `#[gpu_struct]` passed by value: its bytes, borrowed for the launch.
    Record {
        layout: &'static StructLayout,
        bytes: &'a [u8],
    },
}

impl<'a> Arg<'a> {
    /// A read-only array argument.
    #[inline]
    pub fn array<T: Element>(p: ArrayParts<'a, T>) -> Arg<'a> {
        Arg {
            value: ArgValue::Array {
                device: p.device,
                ptr: p.cuda_ptr,
                extents: p.extents,
                rank: p.rank,
                elem: T::ELEM,
                mutable: false,
                owner: p.owner,
            },
            code: array_code(p.rank, false, T::ELEM),
        }
    }

    /// A writable array argument.
    #[inline]
    pub fn array_mut<T: Element>(p: ArrayPartsMut<'a, T>) -> Arg<'a> {
        Arg {
            value: ArgValue::Array {
                device: p.device,
                ptr: p.cuda_ptr,
                extents: p.extents,
                rank: p.rank,
                elem: T::ELEM,
                mutable: true,
                owner: p.owner,
            },
            code: array_code(p.rank, true, T::ELEM),
        }
    }

    /// A scalar argument.
    #[inline]
    pub fn scalar<T: Dtype>(v: T) -> Arg<'static> {
        Arg {
            value: ArgValue::Scalar {
                kind: T::KIND,
                bits: v.to_words(),
            },
            code: scalar_code(T::KIND),
        }
    }

    /// A struct argument, passed by value (its bytes are copied when the launch is
    /// packed).
    #[inline]
    pub fn record<T: GpuStruct>(v: &'a T) -> Arg<'a> {
        Arg {
            value: ArgValue::Record {
                layout: T::LAYOUT,
                bytes: crate::dtype::bytes::bytes_of(std::slice::from_ref(v)),
            },
            code: NO_CODE,
        }
    }
}
