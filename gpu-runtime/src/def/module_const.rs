//! The module constants a kernel names (`TPB` in `shared_array_2d::<f32, TPB, TPB>()`),
//! with the values rustc gave them.
//!
//! A proc macro sees only its own item, so the attribute knows a constant's name and the
//! type its uses imply, not its value. It emits `const __gpu_const_k_0: usize = TPB;`
//! (rustc checks the type) and a [`ConstValue`] of that constant in the kernel's
//! definition; the runtime writes each one into the C source as a `constexpr` when it
//! specialises the kernel, and reads the unsigned ones when it evaluates the fast path.

use crate::dtype::DtypeKind;

/// A module constant's C name, dtype and bits. Made by the attribute; not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstValue {
    c_name: &'static str,
    kind: DtypeKind,
    /// The value's bits, zero-extended (a `bool` is 0 or 1).
    bits: u64,
}

macro_rules! constructors {
    ($($name:ident: $t:ty => $kind:ident, |$v:ident| $bits:expr;)*) => {
        impl ConstValue {
            $(
                #[doc = concat!("A `", stringify!($t), "` constant.")]
                pub const fn $name(c_name: &'static str, $v: $t) -> ConstValue {
                    ConstValue { c_name, kind: DtypeKind::$kind, bits: $bits }
                }
            )*
        }
    };
}

constructors! {
    bool: bool => Bool, |v| v as u64;
    i32: i32 => I32, |v| v as u32 as u64;
    i64: i64 => I64, |v| v as u64;
    isize: isize => Isize, |v| v as i64 as u64;
    u32: u32 => U32, |v| v as u64;
    u64: u64 => U64, |v| v;
    usize: usize => Usize, |v| v as u64;
    f32: f32 => F32, |v| v.to_bits() as u64;
    f64: f64 => F64, |v| v.to_bits();
    u8: u8 => U8, |v| v as u64;
    i8: i8 => I8, |v| v as u8 as u64;
    u16: u16 => U16, |v| v as u64;
    i16: i16 => I16, |v| v as u16 as u64;
}

impl ConstValue {
    /// The C name the kernel's source uses.
    pub fn c_name(&self) -> &'static str {
        self.c_name
    }

    /// The dtype.
    pub fn kind(&self) -> DtypeKind {
        self.kind
    }

    /// The bits, zero-extended to 64.
    pub const fn bits(&self) -> u64 {
        self.bits
    }

    /// The C++ definition: `static constexpr unsigned long long gt_c0_k = ...;`, the exact
    /// bits for every dtype (floats through `__builtin_bit_cast`, so NaN payloads and
    /// signed zeros survive).
    pub fn c_definition(&self) -> String {
        let ty = self.kind.c_name();
        let value = match self.kind {
            DtypeKind::Bool => (self.bits != 0).to_string(),
            // The 8- and 16-bit integers: their bits as an `unsigned int` converted to the
            // type, which keeps them (modulo 2^8 or 2^16).
            k if k.size() <= 2 => format!("(({ty}){:#x}u)", self.bits),
            k if k.size() == 4 => format!("__builtin_bit_cast({ty}, {:#010x}u)", self.bits as u32),
            _ => format!("__builtin_bit_cast({ty}, {:#018x}ull)", self.bits),
        };
        format!("static constexpr {ty} {} = {value};\n", self.c_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_carry_the_exact_bits() {
        assert_eq!(
            ConstValue::usize("gt_c0_k", 16).c_definition(),
            "static constexpr unsigned long long gt_c0_k = \
             __builtin_bit_cast(unsigned long long, 0x0000000000000010ull);\n"
        );
        assert_eq!(
            ConstValue::i32("k_M", -1).c_definition(),
            "static constexpr int k_M = __builtin_bit_cast(int, 0xffffffffu);\n"
        );
        assert_eq!(
            ConstValue::f32("k_X", -0.0).c_definition(),
            "static constexpr float k_X = __builtin_bit_cast(float, 0x80000000u);\n"
        );
        assert_eq!(
            ConstValue::bool("k_B", true).c_definition(),
            "static constexpr bool k_B = true;\n"
        );
        assert_eq!(
            ConstValue::i8("k_N", -2).c_definition(),
            "static constexpr signed char k_N = ((signed char)0xfeu);\n"
        );
        assert_eq!(ConstValue::isize("k_I", -2).bits(), u64::MAX - 1);
        assert_eq!(ConstValue::f64("k_D", 1.5).bits(), 1.5f64.to_bits());
    }
}
