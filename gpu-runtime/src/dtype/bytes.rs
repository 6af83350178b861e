//! An element's bytes: the views that copies between host and device, struct arguments
//! and the simulated communicator read and write through, and the repair of `bool` and
//! C-like enum parts read back from device memory.

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
/// memory) 0 or 1, and every C-like enum part one of its variants, as Rust requires: a
/// checked kernel that indexes out of range is redirected to one sink shared by every
/// type, so an element read from it can carry another type's bytes. Nonzero is `true`, as
/// in C; an enum value that is no variant becomes 0, which every `#[gpu_enum]` has.
pub(crate) fn settle_invalid_parts<T: Element>(bytes: &mut [u8]) {
    let parts = narrow_parts::<T>();
    let size = std::mem::size_of::<T>();
    if parts.is_empty() || size == 0 {
        return;
    }
    for element in bytes.chunks_exact_mut(size) {
        for part in &parts {
            // Only an invalid value is written: memory that holds valid values is only read.
            match *part {
                Narrow::Bool(o) => {
                    if element[o] > 1 {
                        element[o] = 1;
                    }
                }
                Narrow::Enum(o, d, variants) => {
                    let b = &mut element[o..o + d.size()];
                    if !variants.contains(&enum_value(b, d)) {
                        b.fill(0);
                    }
                }
            }
        }
    }
}

/// [`settle_invalid_parts`] on the `len` elements at `ptr`, read and written through the raw
/// pointer (no reference is made, so slices of the memory handed out before stay
/// unaliased).
///
/// # Safety
///
/// `ptr` must be valid for reads and writes of `len` `T`s, and nothing else may access
/// them meanwhile.
pub(crate) unsafe fn settle_raw<T: Element>(ptr: *mut u8, len: usize) {
    let parts = narrow_parts::<T>();
    let size = std::mem::size_of::<T>();
    for i in 0..if parts.is_empty() { 0 } else { len } {
        for part in &parts {
            // SAFETY: (each arm) bytes of element `i`, inside the `len` elements the caller
            // vouches for; a byte is written only where the value is invalid.
            unsafe {
                match *part {
                    Narrow::Bool(o) => {
                        let b = ptr.add(i * size + o);
                        if b.read() > 1 {
                            b.write(1);
                        }
                    }
                    Narrow::Enum(o, d, variants) => {
                        let p = ptr.add(i * size + o);
                        let mut value = [0u8; 8];
                        std::ptr::copy_nonoverlapping(p, value.as_mut_ptr(), d.size());
                        if !variants.contains(&enum_value(&value[..d.size()], d)) {
                            std::ptr::write_bytes(p, 0, d.size());
                        }
                    }
                }
            }
        }
    }
}

/// A part of an element whose bytes are not all values: a `bool`, or a C-like enum's
/// value (its offset, its `repr` dtype, its variants).
#[derive(Clone, Copy)]
enum Narrow {
    Bool(usize),
    Enum(usize, gpu_contract::DtypeKind, &'static [i64]),
}

/// The value of an enum's `repr` integer `d` held in `b` (native byte order).
fn enum_value(b: &[u8], d: gpu_contract::DtypeKind) -> i64 {
    let mut raw = [0u8; 8];
    raw[..b.len()].copy_from_slice(b);
    let unsigned = u64::from_ne_bytes(if cfg!(target_endian = "little") {
        raw
    } else {
        let mut r = [0u8; 8];
        r[8 - b.len()..].copy_from_slice(b);
        r
    });
    let bits = 8 * b.len() as u32;
    if d.is_signed() && bits < 64 {
        // Sign-extend from the part's width.
        ((unsigned << (64 - bits)) as i64) >> (64 - bits)
    } else {
        unsigned as i64
    }
}

/// The parts of a `T` whose bytes are not all values.
fn narrow_parts<T: Element>() -> Vec<Narrow> {
    fn walk(elem: ElemKind, base: usize, out: &mut Vec<Narrow>) {
        match elem {
            ElemKind::Dtype(d) => {
                if d == gpu_contract::DtypeKind::Bool {
                    out.push(Narrow::Bool(base));
                }
            }
            ElemKind::Struct(s) if !s.variants.is_empty() => {
                if let (Some(f), ElemKind::Dtype(d)) = (s.fields.first(), s.fields[0].ty) {
                    out.push(Narrow::Enum(base + f.offset, d, s.variants));
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
    let mut parts = Vec::new();
    walk(T::ELEM, 0, &mut parts);
    parts
}

#[cfg(test)]
mod tests {
    use super::settle_invalid_parts;

    #[test]
    fn bools_copied_from_device_memory_are_made_valid() {
        let mut bytes = [0u8, 1, 6, 255];
        settle_invalid_parts::<bool>(&mut bytes);
        assert_eq!(bytes, [0, 1, 1, 1]);
        let mut ints = [6u8, 255, 0, 1];
        settle_invalid_parts::<u16>(&mut ints);
        assert_eq!(ints, [6, 255, 0, 1], "no bool parts: untouched");
    }

    /// What `#[gpu_enum]` makes of `#[repr(i16)] enum E { A = 0, B = -3, C = 300 }`.
    #[derive(Clone, Copy)]
    #[repr(i16)]
    #[allow(dead_code)]
    enum E {
        A = 0,
        B = -3,
        C = 300,
    }
    static E_LAYOUT: crate::dtype::StructLayout = crate::dtype::StructLayout {
        rust_name: "E",
        module: "tests",
        c_name: "gt_s_E",
        size: 2,
        align: 2,
        fields: &[gpu_contract::FieldLayout {
            name: "value",
            offset: 0,
            ty: crate::dtype::ElemKind::Dtype(gpu_contract::DtypeKind::I16),
            len: None,
        }],
        variants: &[0, -3, 300],
        register_only: false,
    };
    // SAFETY: as `#[gpu_enum]`'s: one `i16` part, a variant of value 0.
    unsafe impl crate::dtype::Element for E {
        const ELEM: crate::dtype::ElemKind = crate::dtype::ElemKind::Struct(&E_LAYOUT);
    }

    #[test]
    fn enum_values_copied_from_device_memory_are_made_variants() {
        let words: [i16; 5] = [0, -3, 300, 7, -1];
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        settle_invalid_parts::<E>(&mut bytes);
        let back: Vec<i16> = bytes
            .chunks_exact(2)
            .map(|c| i16::from_ne_bytes([c[0], c[1]]))
            .collect();
        assert_eq!(
            back,
            [0, -3, 300, 0, 0],
            "values that are no variant become 0"
        );
        // The same through the raw pointer, as pinned buffers are settled.
        let mut raw: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
        // SAFETY: five `E`s' bytes, owned here.
        unsafe { super::settle_raw::<E>(raw.as_mut_ptr(), 5) };
        assert_eq!(raw, bytes);
    }
}
