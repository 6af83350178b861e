//! The dtypes a kernel can take, their spellings on both sides, the bounds of dtype
//! parameters, and how a dtype signature is numbered.
//!
//! A kernel's dtype signature (`vec_add::<f32>`) has one slot in a static array the
//! attribute emits; the slot is `sum(dtypes[k].index() * DTYPE_SLOTS^k)`, so the launcher
//! finds a compiled kernel with one atomic load and no hashing. [`slot_of`] is the one
//! definition of that layout.

/// The element types the language knows.
///
/// Rule: every property is an exhaustive `match`, so a new dtype is one variant here plus
/// whatever the compiler then asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DtypeKind {
    /// `bool`
    Bool,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `usize` (64-bit on every CUDA target)
    Usize,
    /// `isize` (64-bit on every CUDA target)
    Isize,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `half::f16` (IEEE binary16)
    F16,
    /// `half::bf16` (bfloat16)
    Bf16,
    /// `u8`
    U8,
    /// `i8`
    I8,
    /// `u16`
    U16,
    /// `i16`
    I16,
    /// `num_complex::Complex32`: `{re, im}` of `f32`
    C32,
    /// `num_complex::Complex64`: `{re, im}` of `f64`
    C64,
}

impl DtypeKind {
    /// Every dtype, in [`index`](Self::index) order.
    pub const ALL: [DtypeKind; 17] = [
        DtypeKind::Bool,
        DtypeKind::I32,
        DtypeKind::I64,
        DtypeKind::U32,
        DtypeKind::U64,
        DtypeKind::Usize,
        DtypeKind::Isize,
        DtypeKind::F32,
        DtypeKind::F64,
        DtypeKind::F16,
        DtypeKind::Bf16,
        DtypeKind::U8,
        DtypeKind::I8,
        DtypeKind::U16,
        DtypeKind::I16,
        DtypeKind::C32,
        DtypeKind::C64,
    ];

    /// The dtype Rust spells `name` (`"f32"`, `"usize"`, `"f16"`, ...).
    pub fn from_rust_name(name: &str) -> Option<DtypeKind> {
        DtypeKind::ALL.into_iter().find(|d| d.rust_name() == name)
    }

    /// The Rust spelling, as in `vec_add::<f32>`.
    pub const fn rust_name(self) -> &'static str {
        match self {
            DtypeKind::Bool => "bool",
            DtypeKind::I32 => "i32",
            DtypeKind::I64 => "i64",
            DtypeKind::U32 => "u32",
            DtypeKind::U64 => "u64",
            DtypeKind::Usize => "usize",
            DtypeKind::Isize => "isize",
            DtypeKind::F32 => "f32",
            DtypeKind::F64 => "f64",
            DtypeKind::F16 => "f16",
            DtypeKind::Bf16 => "bf16",
            DtypeKind::U8 => "u8",
            DtypeKind::I8 => "i8",
            DtypeKind::U16 => "u16",
            DtypeKind::I16 => "i16",
            DtypeKind::C32 => "Complex32",
            DtypeKind::C64 => "Complex64",
        }
    }

    /// The name of the enum variant, for code that names it (`DtypeKind::F16`).
    pub const fn variant_name(self) -> &'static str {
        match self {
            DtypeKind::Bool => "Bool",
            DtypeKind::I32 => "I32",
            DtypeKind::I64 => "I64",
            DtypeKind::U32 => "U32",
            DtypeKind::U64 => "U64",
            DtypeKind::Usize => "Usize",
            DtypeKind::Isize => "Isize",
            DtypeKind::F32 => "F32",
            DtypeKind::F64 => "F64",
            DtypeKind::F16 => "F16",
            DtypeKind::Bf16 => "Bf16",
            DtypeKind::U8 => "U8",
            DtypeKind::I8 => "I8",
            DtypeKind::U16 => "U16",
            DtypeKind::I16 => "I16",
            DtypeKind::C32 => "C32",
            DtypeKind::C64 => "C64",
        }
    }

    /// The CUDA C spelling in generated code (the 16-bit floats are the prelude's own
    /// header-free types).
    pub const fn c_name(self) -> &'static str {
        match self {
            DtypeKind::Bool => "bool",
            DtypeKind::I32 => "int",
            DtypeKind::I64 | DtypeKind::Isize => "long long",
            DtypeKind::U32 => "unsigned int",
            DtypeKind::U64 | DtypeKind::Usize => "unsigned long long",
            DtypeKind::F32 => "float",
            DtypeKind::F64 => "double",
            DtypeKind::F16 => "gt_f16",
            DtypeKind::Bf16 => "gt_bf16",
            DtypeKind::U8 => "unsigned char",
            DtypeKind::I8 => "signed char",
            DtypeKind::U16 => "unsigned short",
            DtypeKind::I16 => "short",
            DtypeKind::C32 => "gt_c32",
            DtypeKind::C64 => "gt_c64",
        }
    }

    /// The size in bytes, on the host and the device alike.
    pub const fn size(self) -> usize {
        match self {
            DtypeKind::Bool | DtypeKind::U8 | DtypeKind::I8 => 1,
            DtypeKind::F16 | DtypeKind::Bf16 | DtypeKind::U16 | DtypeKind::I16 => 2,
            DtypeKind::I32 | DtypeKind::U32 | DtypeKind::F32 => 4,
            DtypeKind::I64
            | DtypeKind::U64
            | DtypeKind::Usize
            | DtypeKind::Isize
            | DtypeKind::F64
            | DtypeKind::C32 => 8,
            DtypeKind::C64 => 16,
        }
    }

    /// A small dense index: the digit of this dtype in a signature slot.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether it is a floating-point type.
    pub const fn is_float(self) -> bool {
        match self {
            DtypeKind::F32 | DtypeKind::F64 | DtypeKind::F16 | DtypeKind::Bf16 => true,
            DtypeKind::Bool
            | DtypeKind::I32
            | DtypeKind::I64
            | DtypeKind::U32
            | DtypeKind::U64
            | DtypeKind::Usize
            | DtypeKind::Isize
            | DtypeKind::U8
            | DtypeKind::I8
            | DtypeKind::U16
            | DtypeKind::I16
            | DtypeKind::C32
            | DtypeKind::C64 => false,
        }
    }

    /// Whether it is a complex number (`Complex32`, `Complex64`).
    pub const fn is_complex(self) -> bool {
        matches!(self, DtypeKind::C32 | DtypeKind::C64)
    }

    /// The type of a complex number's parts (`f32` for `Complex32`); a real type is its
    /// own.
    pub const fn real_part(self) -> DtypeKind {
        match self {
            DtypeKind::C32 => DtypeKind::F32,
            DtypeKind::C64 => DtypeKind::F64,
            other => other,
        }
    }

    /// The complex type with parts of this type (`Complex32` for `f32`).
    pub const fn complex_of(self) -> Option<DtypeKind> {
        match self {
            DtypeKind::F32 => Some(DtypeKind::C32),
            DtypeKind::F64 => Some(DtypeKind::C64),
            _ => None,
        }
    }

    /// Whether it is an integer type.
    pub const fn is_int(self) -> bool {
        !matches!(self, DtypeKind::Bool) && !self.is_float() && !self.is_complex()
    }

    /// Whether it is a signed integer or a float.
    pub const fn is_signed(self) -> bool {
        match self {
            DtypeKind::I32 | DtypeKind::I64 | DtypeKind::Isize | DtypeKind::I8 | DtypeKind::I16 => {
                true
            }
            DtypeKind::Bool
            | DtypeKind::U32
            | DtypeKind::U64
            | DtypeKind::Usize
            | DtypeKind::U8
            | DtypeKind::U16
            | DtypeKind::C32
            | DtypeKind::C64 => false,
            DtypeKind::F32 | DtypeKind::F64 | DtypeKind::F16 | DtypeKind::Bf16 => true,
        }
    }

    /// Whether C promotes it to `int` in arithmetic (`u8`, `i8`, `u16`, `i16`): generated
    /// code converts every such result back, so it computes what Rust computes.
    pub const fn is_narrow_int(self) -> bool {
        matches!(
            self,
            DtypeKind::U8 | DtypeKind::I8 | DtypeKind::U16 | DtypeKind::I16
        )
    }

    /// Whether Rust has literals and `as` casts for it (the 16-bit floats and complex
    /// numbers are library types: `f16::from_f64(x)`, `Complex32::new(re, im)`).
    pub const fn is_primitive(self) -> bool {
        !matches!(
            self,
            DtypeKind::F16 | DtypeKind::Bf16 | DtypeKind::C32 | DtypeKind::C64
        )
    }

    /// The bits of an integer type (0 for the others).
    pub const fn int_bits(self) -> u32 {
        match self {
            DtypeKind::U8 | DtypeKind::I8 => 8,
            DtypeKind::U16 | DtypeKind::I16 => 16,
            DtypeKind::I32 | DtypeKind::U32 => 32,
            DtypeKind::I64 | DtypeKind::U64 | DtypeKind::Usize | DtypeKind::Isize => 64,
            DtypeKind::Bool
            | DtypeKind::F32
            | DtypeKind::F64
            | DtypeKind::F16
            | DtypeKind::Bf16
            | DtypeKind::C32
            | DtypeKind::C64 => 0,
        }
    }

    /// The unsigned integer type of the same width, for an integer (`abs_diff`'s result)
    /// or a float (`to_bits`'s result: `u32` for `f32`, `u16` for `f16` and `bf16`);
    /// `None` for `bool` and complex numbers.
    pub const fn unsigned_of_width(self) -> Option<DtypeKind> {
        match self {
            DtypeKind::U8 | DtypeKind::I8 => Some(DtypeKind::U8),
            DtypeKind::U16 | DtypeKind::I16 | DtypeKind::F16 | DtypeKind::Bf16 => {
                Some(DtypeKind::U16)
            }
            DtypeKind::U32 | DtypeKind::I32 | DtypeKind::F32 => Some(DtypeKind::U32),
            DtypeKind::U64 | DtypeKind::I64 | DtypeKind::F64 => Some(DtypeKind::U64),
            DtypeKind::Usize | DtypeKind::Isize => Some(DtypeKind::Usize),
            DtypeKind::Bool | DtypeKind::C32 | DtypeKind::C64 => None,
        }
    }

    /// The smallest and largest value of an integer type, as `i128`.
    pub const fn int_range(self) -> Option<(i128, i128)> {
        match self {
            DtypeKind::U8 => Some((0, u8::MAX as i128)),
            DtypeKind::I8 => Some((i8::MIN as i128, i8::MAX as i128)),
            DtypeKind::U16 => Some((0, u16::MAX as i128)),
            DtypeKind::I16 => Some((i16::MIN as i128, i16::MAX as i128)),
            DtypeKind::I32 => Some((i32::MIN as i128, i32::MAX as i128)),
            DtypeKind::I64 | DtypeKind::Isize => Some((i64::MIN as i128, i64::MAX as i128)),
            DtypeKind::U32 => Some((0, u32::MAX as i128)),
            DtypeKind::U64 | DtypeKind::Usize => Some((0, u64::MAX as i128)),
            DtypeKind::Bool
            | DtypeKind::F32
            | DtypeKind::F64
            | DtypeKind::F16
            | DtypeKind::Bf16
            | DtypeKind::C32
            | DtypeKind::C64 => None,
        }
    }

    /// Whether a dtype parameter bounded by `bound` may take this type.
    pub const fn satisfies(self, bound: Bound) -> bool {
        match bound {
            Bound::Float => self.is_float(),
            Bound::Int => self.is_int(),
            Bound::Num => !matches!(self, DtypeKind::Bool) && !self.is_complex(),
            Bound::MmaOperand => matches!(self, DtypeKind::F16 | DtypeKind::Bf16),
        }
    }
}

impl std::fmt::Display for DtypeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// The bound on a kernel's dtype parameter (`T: Float`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// `Float`: `f32`, `f64`, `f16`, `bf16`.
    Float,
    /// `Int`: the integer types.
    Int,
    /// `Num`: any real number.
    Num,
    /// `MmaOperand`: what the tensor cores' `mma` multiplies, `f16` and `bf16`.
    MmaOperand,
}

impl Bound {
    /// Every bound.
    pub const ALL: [Bound; 4] = [Bound::Float, Bound::Int, Bound::Num, Bound::MmaOperand];

    /// The trait's name, as written in a bound.
    pub const fn name(self) -> &'static str {
        match self {
            Bound::Float => "Float",
            Bound::Int => "Int",
            Bound::Num => "Num",
            Bound::MmaOperand => "MmaOperand",
        }
    }

    /// The bound a trait name stands for.
    pub fn from_name(name: &str) -> Option<Bound> {
        Bound::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// The radix of signature slots: more than the number of dtypes, so a dtype's digit never
/// runs into the next parameter's.
pub const DTYPE_SLOTS: usize = 17;

/// The most dtype parameters a kernel may have (each multiplies its slot table by
/// [`DTYPE_SLOTS`]).
pub const MAX_GENERICS: usize = 3;

/// The number of signature slots of a kernel with `generics` dtype parameters.
pub const fn slot_count(generics: usize) -> usize {
    let mut n = 1;
    let mut k = 0;
    while k < generics {
        n *= DTYPE_SLOTS;
        k += 1;
    }
    n
}

/// The slot of the signature `dtypes` (the first dtype is the lowest digit).
#[inline]
pub fn slot_of(dtypes: &[DtypeKind]) -> usize {
    dtypes
        .iter()
        .rev()
        .fold(0, |acc, d| acc * DTYPE_SLOTS + d.index())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_indices_are_dense() {
        for (i, d) in DtypeKind::ALL.into_iter().enumerate() {
            assert_eq!(DtypeKind::from_rust_name(d.rust_name()), Some(d));
            assert_eq!(d.index(), i);
            assert!(d.index() < DTYPE_SLOTS);
        }
    }

    #[test]
    fn slots_are_distinct_for_distinct_signatures() {
        let mut seen = [false; DTYPE_SLOTS * DTYPE_SLOTS];
        for a in DtypeKind::ALL {
            for b in DtypeKind::ALL {
                let s = slot_of(&[a, b]);
                assert!(s < slot_count(2));
                assert!(!seen[s]);
                seen[s] = true;
            }
        }
        assert_eq!(slot_of(&[DtypeKind::F16]), DtypeKind::F16.index());
    }

    #[test]
    fn bounds_admit_what_they_say() {
        assert!(DtypeKind::F16.satisfies(Bound::Float));
        assert!(!DtypeKind::I32.satisfies(Bound::Float));
        assert!(DtypeKind::Usize.satisfies(Bound::Int));
        assert!(!DtypeKind::Bool.satisfies(Bound::Num));
        assert!(!DtypeKind::C32.satisfies(Bound::Num));
        assert!(!DtypeKind::C64.satisfies(Bound::Float));
        assert_eq!(DtypeKind::C64.real_part(), DtypeKind::F64);
        assert_eq!(DtypeKind::F32.complex_of(), Some(DtypeKind::C32));
        assert_eq!(Bound::from_name("Int"), Some(Bound::Int));
    }
}
