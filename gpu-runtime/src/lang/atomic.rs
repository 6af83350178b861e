//! Atomic operations of the kernel language (CUDA's `atomicAdd` family; Numba's
//! `cuda.atomic`): `atomic_add(array, index, value)` on a `&mut [T]` parameter or a shared
//! array, returning the old value. Each is one hardware atomic on the GPU and a real
//! atomic in the simulator; on the 8- and 16-bit integers and the 16-bit floats, which
//! CUDA has no atomics for, the GPU runs a compare-and-swap loop on the enclosing 32-bit
//! word (its other bytes are written back only unchanged, so neighbouring elements are
//! never disturbed).
//!
//! | function | dtypes |
//! |---|---|
//! | `atomic_add`, `atomic_sub`, `atomic_exch`, `atomic_cas` | every number |
//! | `atomic_min`, `atomic_max`, `atomic_and`, `atomic_or`, `atomic_xor` | integers |
//! | `atomic_inc`, `atomic_dec` | `u32` |

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::backend::sim::{SimArray2Mut, SimArray3Mut, SimSliceMut};
use crate::dtype::{Int, Num, Word};
use crate::lang::shared::{DynamicSharedArray, SharedArray, SharedArray2};

/// Something an atomic can address: a writable array, with its index type.
pub trait AtomicTarget<I> {
    /// The element type.
    type Elem: Word;
    #[doc(hidden)]
    fn element_ptr(&self, index: I) -> *mut Self::Elem;
}

impl<T: Word> AtomicTarget<usize> for SimSliceMut<'_, T> {
    type Elem = T;
    fn element_ptr(&self, index: usize) -> *mut T {
        self.element(index)
    }
}

impl<T: Word> AtomicTarget<(usize, usize)> for SimArray2Mut<'_, T> {
    type Elem = T;
    fn element_ptr(&self, index: (usize, usize)) -> *mut T {
        self.element(index)
    }
}

impl<T: Word> AtomicTarget<(usize, usize, usize)> for SimArray3Mut<'_, T> {
    type Elem = T;
    fn element_ptr(&self, index: (usize, usize, usize)) -> *mut T {
        self.element(index)
    }
}

impl<T: Word, const N: usize> AtomicTarget<usize> for SharedArray<T, N> {
    type Elem = T;
    fn element_ptr(&self, index: usize) -> *mut T {
        self.element(index)
    }
}

impl<T: Word, const R: usize, const C: usize> AtomicTarget<(usize, usize)>
    for SharedArray2<T, R, C>
{
    type Elem = T;
    fn element_ptr(&self, index: (usize, usize)) -> *mut T {
        self.element(index)
    }
}

impl<T: Word> AtomicTarget<usize> for DynamicSharedArray<T> {
    type Elem = T;
    fn element_ptr(&self, index: usize) -> *mut T {
        self.element(index)
    }
}

/// Replace `*ptr` with `f(old)` atomically; returns `old`.
fn update<T: Word>(ptr: *mut T, f: impl Fn(T) -> T) -> T {
    match std::mem::size_of::<T>() {
        1 => {
            // SAFETY: as below, for 1-byte dtypes (u8, i8).
            let a = unsafe { std::sync::atomic::AtomicU8::from_ptr(ptr as *mut u8) };
            let old = a
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                    Some(f(T::from_bits64(bits as u64)).to_bits64() as u8)
                })
                .unwrap_or_else(|v| v);
            T::from_bits64(old as u64)
        }
        2 => {
            // SAFETY: as below, for 2-byte dtypes (f16, bf16, u16, i16), 2-byte aligned.
            let a = unsafe { std::sync::atomic::AtomicU16::from_ptr(ptr as *mut u16) };
            let old = a
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                    Some(f(T::from_bits64(bits as u64)).to_bits64() as u16)
                })
                .unwrap_or_else(|v| v);
            T::from_bits64(old as u64)
        }
        4 => {
            // SAFETY: `ptr` is a valid, aligned element of a live array; 4-byte dtypes are
            // 4-byte aligned; every access to it during the kernel goes through atomics
            // or is ordered by the kernel's barriers.
            let a = unsafe { AtomicU32::from_ptr(ptr as *mut u32) };
            let old = a
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                    Some(f(T::from_bits64(bits as u64)).to_bits64() as u32)
                })
                .unwrap_or_else(|v| v);
            T::from_bits64(old as u64)
        }
        8 => {
            // SAFETY: as above, for 8-byte dtypes.
            let a = unsafe { AtomicU64::from_ptr(ptr as *mut u64) };
            let old = a
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |bits| {
                    Some(f(T::from_bits64(bits)).to_bits64())
                })
                .unwrap_or_else(|v| v);
            T::from_bits64(old)
        }
        n => unreachable!("no atomic dtype is {n} bytes"),
    }
}

/// `array[index] += value`; returns the old value (`atomicAdd`).
pub fn atomic_add<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Num,
{
    update(array.element_ptr(index), |old| {
        add_wrapping(old, value, false)
    })
}

/// `array[index] -= value`; returns the old value (`atomicSub`).
pub fn atomic_sub<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Num,
{
    update(array.element_ptr(index), |old| {
        add_wrapping(old, value, true)
    })
}

/// `a + b` (or `a - b`), wrapping for integers as hardware atomics do; floats round as
/// usual.
fn add_wrapping<T: Num>(a: T, b: T, subtract: bool) -> T {
    if matches!(
        T::KIND,
        crate::dtype::DtypeKind::F32
            | crate::dtype::DtypeKind::F64
            | crate::dtype::DtypeKind::F16
            | crate::dtype::DtypeKind::Bf16
    ) {
        return if subtract { a - b } else { a + b };
    }
    let bits = std::mem::size_of::<T>() * 8;
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let (x, y) = (a.to_bits64(), b.to_bits64());
    let r = if subtract {
        x.wrapping_sub(y)
    } else {
        x.wrapping_add(y)
    };
    T::from_bits64(r & mask)
}

/// `array[index] = min(array[index], value)`; returns the old value (`atomicMin`).
pub fn atomic_min<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Int,
{
    update(array.element_ptr(index), |old| old.min(value))
}

/// `array[index] = max(array[index], value)`; returns the old value (`atomicMax`).
pub fn atomic_max<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Int,
{
    update(array.element_ptr(index), |old| old.max(value))
}

/// `array[index] &= value`; returns the old value (`atomicAnd`).
pub fn atomic_and<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Int,
{
    update(array.element_ptr(index), |old| old & value)
}

/// `array[index] |= value`; returns the old value (`atomicOr`).
pub fn atomic_or<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Int,
{
    update(array.element_ptr(index), |old| old | value)
}

/// `array[index] ^= value`; returns the old value (`atomicXor`).
pub fn atomic_xor<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Int,
{
    update(array.element_ptr(index), |old| old ^ value)
}

/// `array[index] = value`; returns the old value (`atomicExch`).
pub fn atomic_exch<A: AtomicTarget<I>, I>(array: A, index: I, value: A::Elem) -> A::Elem
where
    A::Elem: Num,
{
    update(array.element_ptr(index), |_| value)
}

/// If `array[index]` equals `compare` (bit for bit), set it to `value`; returns the old
/// value either way (`atomicCAS`).
pub fn atomic_cas<A: AtomicTarget<I>, I>(
    array: A,
    index: I,
    compare: A::Elem,
    value: A::Elem,
) -> A::Elem
where
    A::Elem: Num,
{
    update(array.element_ptr(index), |old| {
        if old.to_bits64() == compare.to_bits64() {
            value
        } else {
            old
        }
    })
}

/// `array[index] = if old >= limit { 0 } else { old + 1 }`; returns the old value
/// (`atomicInc`).
pub fn atomic_inc<A: AtomicTarget<I, Elem = u32>, I>(array: A, index: I, limit: u32) -> u32 {
    update(array.element_ptr(index), |old| {
        if old >= limit {
            0
        } else {
            old + 1
        }
    })
}

/// `array[index] = if old == 0 || old > limit { limit } else { old - 1 }`; returns the old
/// value (`atomicDec`).
pub fn atomic_dec<A: AtomicTarget<I, Elem = u32>, I>(array: A, index: I, limit: u32) -> u32 {
    update(array.element_ptr(index), |old| {
        if old == 0 || old > limit {
            limit
        } else {
            old - 1
        }
    })
}
