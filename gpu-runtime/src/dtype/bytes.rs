//! An element's bytes: the views that copies between host and device, struct arguments
//! and the simulated communicator read and write through, and the repair of `bool` parts
//! read back from device memory.

use super::{ElemKind, Element};

/// The bytes of `values`. Every `Element` is plain data without padding (the dtypes are
/// sealed; a struct's `Element` impl promises it, and `#[gpu_struct]` asserts it).
pub(crate) fn bytes_of<T: Element>(values: &[T]) -> &[u8] {
    // SAFETY: `values` is `size_of_val(values)` initialised bytes (no element has padding),
    // readable for the borrow's life; `u8` has alignment 1.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), std::mem::size_of_val(values)) }
}

/// The bytes of `values`, to be overwritten with bytes copied from device memory that
/// holds values of `T`.
///
/// Sound only for bytes that are a `T`: device memory of an array of `T` is written only
/// with values of `T` (host copies, kernels whose C type is `T`'s, zeroes, which every
/// dtype has), as cudarc's typed copy would assume too.
pub(crate) fn bytes_of_mut<T: Element>(values: &mut [T]) -> &mut [u8] {
    // SAFETY: as `bytes_of`, borrowed mutably; what is written is a `T` (see above).
    unsafe {
        std::slice::from_raw_parts_mut(values.as_mut_ptr().cast(), std::mem::size_of_val(values))
    }
}

/// Make every `bool` part of the elements `bytes` holds (a copy of `T`s from device
/// memory) 0 or 1, as Rust requires: a checked kernel that indexes out of range is
/// redirected to one sink shared by every type, so an element read from it can carry
/// another type's byte. Nonzero is `true`, as in C.
pub(crate) fn settle_bools<T: Element>(bytes: &mut [u8]) {
    let offsets = bool_offsets::<T>();
    let size = std::mem::size_of::<T>();
    if offsets.is_empty() || size == 0 {
        return;
    }
    for element in bytes.chunks_exact_mut(size) {
        for &o in &offsets {
            // Only an invalid byte is written: memory that holds valid values is only read.
            if element[o] > 1 {
                element[o] = 1;
            }
        }
    }
}

/// The byte offsets of the `bool` parts of a `T`.
pub(crate) fn bool_offsets<T: Element>() -> Vec<usize> {
    fn walk(elem: ElemKind, base: usize, out: &mut Vec<usize>) {
        match elem {
            ElemKind::Dtype(d) => {
                if d == gpu_contract::DtypeKind::Bool {
                    out.push(base);
                }
            }
            ElemKind::Struct(s) => {
                for f in s.fields {
                    for k in 0..f.len.unwrap_or(1) {
                        walk(f.ty, base + f.offset + k * f.ty.size(), out);
                    }
                }
            }
        }
    }
    let mut offsets = Vec::new();
    walk(T::ELEM, 0, &mut offsets);
    offsets
}

#[cfg(test)]
mod tests {
    use super::settle_bools;

    #[test]
    fn bools_copied_from_device_memory_are_made_valid() {
        let mut bytes = [0u8, 1, 6, 255];
        settle_bools::<bool>(&mut bytes);
        assert_eq!(bytes, [0, 1, 1, 1]);
        let mut ints = [6u8, 255, 0, 1];
        settle_bools::<u16>(&mut ints);
        assert_eq!(ints, [6, 255, 0, 1], "no bool parts: untouched");
    }
}
