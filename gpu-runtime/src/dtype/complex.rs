//! Complex numbers as kernel dtypes: num-complex's `Complex32` and `Complex64`, which are
//! `#[repr(C)] {re, im}` as the prelude's `gt_c32` / `gt_c64` are (the generated C asserts
//! their size and alignment). On the simulator a kernel computes with num-complex's own
//! operators and methods; the prelude writes the same formulas in CUDA C++, so both give
//! the bits of the host (see the README's semantics contract for the bounds of the ones
//! built on `exp`, `hypot`, `atan2`, ...). Their simulated operators are in
//! `dtype/arith.rs`, with the floats'.

use num_complex::Complex;

use super::{sealed, Dtype, DtypeKind, ElemKind, Element};

macro_rules! complex_dtype {
    ($($part:ty => $kind:ident, $bits:ty;)*) => {$(
        impl sealed::Sealed for Complex<$part> {}
        // The simulator reads and writes each part as an atomic of the part's size; the
        // C side is the same two parts with no padding.
        const _: () = assert!(
            ::core::mem::align_of::<Complex<$part>>() == ::core::mem::size_of::<$part>()
                && ::core::mem::size_of::<Complex<$part>>() == 2 * ::core::mem::size_of::<$part>()
        );
        // SAFETY: two parts of `$part` with no padding (asserted above), described by its
        // kind.
        unsafe impl Element for Complex<$part> {
            const ELEM: ElemKind = ElemKind::Dtype(DtypeKind::$kind);
        }
        impl Dtype for Complex<$part> {
            const KIND: DtypeKind = DtypeKind::$kind;
            #[inline]
            fn to_words(self) -> [u64; 2] {
                [self.re.to_bits() as u64, self.im.to_bits() as u64]
            }
            #[inline]
            fn from_words(words: [u64; 2]) -> Self {
                Complex::new(<$part>::from_bits(words[0] as $bits), <$part>::from_bits(words[1] as $bits))
            }
        }
    )*};
}

complex_dtype! {
    f32 => C32, u32;
    f64 => C64, u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_round_trip_through_words_and_keep_cs_layout() {
        let z = Complex::new(-1.5f32, f32::from_bits(0x7fc0_0001));
        let w = z.to_words();
        assert_eq!(w, [(-1.5f32).to_bits() as u64, 0x7fc0_0001]);
        assert_eq!(Complex::<f32>::from_words(w).im.to_bits(), 0x7fc0_0001);
        let y = Complex::new(3.0f64, -0.0);
        assert_eq!(
            Complex::<f64>::from_words(y.to_words()).im.to_bits(),
            (-0.0f64).to_bits()
        );
        // `{re, im}`: the real part first, as C's struct.
        let bytes = crate::dtype::bytes::bytes_of(std::slice::from_ref(&z));
        assert_eq!(&bytes[..4], &(-1.5f32).to_ne_bytes());
    }
}
