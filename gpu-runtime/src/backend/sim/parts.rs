//! An element's parts, read and written one relaxed atomic access per part: what every
//! simulator access to memory the simulated threads share goes through (views, shared
//! arrays, a method called on an array's element). A part is a dtype's value, a complex
//! number's half, or a struct's field (nested structs and array fields included), so a
//! racing access reads some part that was written, as on the GPU.

use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering};

use crate::dtype::{ElemKind, Element};
/// Calls `f(offset, bytes)` for every part of a value of `elem`: one part of its size for
/// a real dtype, the two halves of a complex number, and each dtype part of a struct's
/// fields (nested structs and array fields included), in address order.
#[inline]
fn for_each_part(elem: ElemKind, base: usize, f: &mut impl FnMut(usize, usize)) {
    match elem {
        ElemKind::Dtype(d) => {
            let n = if d.is_complex() { 2 } else { 1 };
            let size = d.size() / n;
            for k in 0..n {
                f(base + k * size, size);
            }
        }
        ElemKind::Struct(s) => {
            for field in s.fields {
                let size = field.ty.size();
                for k in 0..field.len.unwrap_or(1) {
                    for_each_part(field.ty, base + field.offset + k * size, f);
                }
            }
        }
    }
}

/// Read `*p` with one relaxed atomic load of each part's width (a complex number's two
/// parts are two loads, as on the GPU; a struct's fields one by one).
///
/// # Safety
///
/// `p` must be valid for reads and aligned for `T`.
#[inline]
pub(crate) unsafe fn load<T: Element>(p: *const T) -> T {
    let mut out = std::mem::MaybeUninit::<T>::uninit();
    let dst = out.as_mut_ptr().cast::<u8>();
    for_each_part(T::ELEM, 0, &mut |offset, size| {
        // SAFETY: (each arm) the part at `offset` of the caller's valid `T`, inside it
        // (`Element`'s contract: the parts tile `T`); every dtype's alignment is its
        // part's size (asserted where each dtype is implemented) and a struct's fields sit
        // at offsets rustc aligned for them, so the part is aligned for the atomic of its
        // size. `dst` is the same offset in `out`, as aligned.
        unsafe {
            let q = p.cast::<u8>().add(offset).cast_mut();
            let d = dst.add(offset);
            match size {
                1 => d.write(AtomicU8::from_ptr(q).load(Ordering::Relaxed)),
                2 => d
                    .cast::<u16>()
                    .write(AtomicU16::from_ptr(q.cast()).load(Ordering::Relaxed)),
                4 => d
                    .cast::<u32>()
                    .write(AtomicU32::from_ptr(q.cast()).load(Ordering::Relaxed)),
                _ => d
                    .cast::<u64>()
                    .write(AtomicU64::from_ptr(q.cast()).load(Ordering::Relaxed)),
            }
        }
    });
    // SAFETY: every byte of `out` was written (the parts tile `T`, which has no padding),
    // with the bits of the parts of a valid `T` in memory.
    unsafe { out.assume_init() }
}

/// Write `*p = v` with one relaxed atomic store of each part's width.
///
/// # Safety
///
/// `p` must be valid for writes and aligned for `T`.
#[inline]
pub(crate) unsafe fn store<T: Element>(p: *mut T, v: T) {
    let src = (&raw const v).cast::<u8>();
    for_each_part(T::ELEM, 0, &mut |offset, size| {
        // SAFETY: as in `load`; `src` is `v`'s part at the same offset, initialised (no
        // padding) and aligned.
        unsafe {
            let q = p.cast::<u8>().add(offset);
            let s = src.add(offset);
            match size {
                1 => AtomicU8::from_ptr(q).store(s.read(), Ordering::Relaxed),
                2 => AtomicU16::from_ptr(q.cast()).store(s.cast::<u16>().read(), Ordering::Relaxed),
                4 => AtomicU32::from_ptr(q.cast()).store(s.cast::<u32>().read(), Ordering::Relaxed),
                _ => AtomicU64::from_ptr(q.cast()).store(s.cast::<u64>().read(), Ordering::Relaxed),
            }
        }
    });
}

/// Write back the parts of `after` that differ from `before` (what `*p` held when it was
/// read), one relaxed atomic store of each part's width: what a method that takes
/// `&mut self` does to an array element on the GPU, where it writes through a reference
/// and so only the fields it assigns (other threads may write the others).
///
/// # Safety
///
/// `p` must be valid for writes and aligned for `T`.
#[inline]
pub(crate) unsafe fn store_changed<T: Element>(p: *mut T, before: &T, after: &T) {
    let (old, new) = (
        (before as *const T).cast::<u8>(),
        (after as *const T).cast::<u8>(),
    );
    for_each_part(T::ELEM, 0, &mut |offset, size| {
        // SAFETY: as in `store`; `old` and `new` are initialised `T`s (no padding), read
        // at the same part.
        unsafe {
            let (a, b) = (old.add(offset), new.add(offset));
            if std::slice::from_raw_parts(a, size) == std::slice::from_raw_parts(b, size) {
                return;
            }
            let q = p.cast::<u8>().add(offset);
            match size {
                1 => AtomicU8::from_ptr(q).store(b.read(), Ordering::Relaxed),
                2 => AtomicU16::from_ptr(q.cast())
                    .store(b.cast::<u16>().read_unaligned(), Ordering::Relaxed),
                4 => AtomicU32::from_ptr(q.cast())
                    .store(b.cast::<u32>().read_unaligned(), Ordering::Relaxed),
                _ => AtomicU64::from_ptr(q.cast())
                    .store(b.cast::<u64>().read_unaligned(), Ordering::Relaxed),
            }
        }
    });
}

/// What `a[i].m(..)` is in the simulator, for a method `m` of the element's type: the
/// element read, `f` called on it, and (`mutable`) the parts it changed written back.
///
/// # Safety
///
/// `p` must be valid for reads (and, when `mutable`, writes) and aligned for `T`.
#[inline]
pub(crate) unsafe fn call_on_element<T: Element, R>(p: *mut T, f: impl FnOnce(&mut T) -> R) -> R {
    // SAFETY: the caller's.
    let before = unsafe { load(p) };
    let mut value = before;
    let r = f(&mut value);
    // SAFETY: the caller's.
    unsafe { store_changed(p, &before, &value) };
    r
}

/// The offset in a `T` of the field `field` picks (`|e| &mut e.pos.x`), found on a zeroed
/// probe (a closure that returns something else gives an offset no field of `F` starts
/// at, which [`store_field`] refuses).
#[inline]
pub(crate) fn field_offset<T: Element, F>(field: impl FnOnce(&mut T) -> &mut F) -> usize {
    let mut probe = crate::dtype::zeroed::<T>();
    let base = (&raw mut probe) as usize;
    (field(&mut probe) as *mut F as usize).wrapping_sub(base)
}

/// Write `value` into the part of the `T` at `p` that starts `offset` bytes in, when a
/// field of `F`'s dtype starts there (a struct field's write in a kernel,
/// `ps[i].pos.x = v`, which must not rewrite the fields other threads may write).
/// Panics otherwise: the generated code passes `offset_of!` of a field of type `F`.
///
/// # Safety
///
/// `p` must be valid for writes and aligned for `T`.
#[inline]
pub(crate) unsafe fn store_field<T: Element, F: Element>(p: *mut T, offset: usize, value: F) {
    let ElemKind::Struct(s) = T::ELEM else {
        panic!("a field write to an element that is not a struct");
    };
    assert!(
        s.part_at(offset, F::ELEM),
        "no {} field of {} at byte {offset}",
        F::ELEM,
        s.path()
    );
    // SAFETY: a field of `F` starts at `offset` inside the `T` at `p` (checked above), so
    // `p + offset` is valid and aligned for an `F` (rustc placed the field), and storing
    // an `F` there leaves a valid `T`.
    unsafe { store(p.cast::<u8>().add(offset).cast::<F>(), value) }
}
