//! The module constants a kernel names (`TPB` in `shared_array_2d::<f32, TPB, TPB>()`),
//! with the values rustc gave them.
//!
//! A proc macro sees only its own item, so the attribute knows a constant's name and the
//! type its uses imply, not its value. It emits `const __gpu_const_k_0: usize = TPB;`
//! (rustc checks the type) and a [`ConstValue`] of that constant in the kernel's
//! definition; the runtime writes each one into the C source as a `constexpr` when it
//! specialises the kernel, and reads the unsigned ones when it evaluates the fast path.

use super::module_array::{GlobalInfo, ModuleArrayDyn};
use crate::dtype::DtypeKind;

/// A module constant's C name, dtype and bits. Made by the attribute; not a public API.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ConstValue {
    c_name: &'static str,
    kind: DtypeKind,
    /// The value's bits, zero-extended (a `bool` is 0 or 1); 0 for an array.
    bits: u64,
    /// A module array (`const LUT: [f32; 4]`, a `#[gpu_global]`) and its extents.
    table: Option<(&'static dyn ModuleArrayDyn, &'static [usize])>,
}

impl std::fmt::Debug for ConstValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("ConstValue");
        d.field("c_name", &self.c_name);
        match self.table {
            None => d.field("kind", &self.kind).field("bits", &self.bits),
            Some((array, dims)) => d
                .field("elements", &array.elements())
                .field("global", &array.global())
                .field("dims", &dims),
        };
        d.finish()
    }
}

impl PartialEq for ConstValue {
    fn eq(&self, other: &Self) -> bool {
        let same_array = match (self.table, other.table) {
            (None, None) => true,
            // A global is itself (its address), a table its values.
            (Some((a, x)), Some((b, y))) => {
                x == y
                    && match (a.global(), b.global()) {
                        (Some(_), Some(_)) => std::ptr::addr_eq(a, b),
                        (None, None) => a.elements() == b.elements(),
                        _ => false,
                    }
            }
            _ => false,
        };
        self.c_name == other.c_name
            && self.kind == other.kind
            && self.bits == other.bits
            && same_array
    }
}

/// The elements of a module array, as rustc gave them.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TableData<'a> {
    Bool(&'a [bool]),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    Isize(&'a [isize]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    Usize(&'a [usize]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

/// Each variant's slice, by the same name: `$body` with `$v` bound to it.
macro_rules! each_table {
    ($data:expr, |$v:ident| $body:expr) => {
        match $data {
            TableData::Bool($v) => $body,
            TableData::I8($v) => $body,
            TableData::I16($v) => $body,
            TableData::I32($v) => $body,
            TableData::I64($v) => $body,
            TableData::Isize($v) => $body,
            TableData::U8($v) => $body,
            TableData::U16($v) => $body,
            TableData::U32($v) => $body,
            TableData::U64($v) => $body,
            TableData::Usize($v) => $body,
            TableData::F32($v) => $body,
            TableData::F64($v) => $body,
        }
    };
}

impl TableData<'_> {
    /// The elements' bytes, as the host (and the GPU, little-endian as it) lays them out:
    /// one copy, with no other buffer.
    pub(crate) fn bytes(&self) -> Vec<u8> {
        // SAFETY: numbers and `bool`s have no padding; the slice's bytes are initialised
        // and readable for its borrow.
        each_table!(*self, |v| unsafe {
            std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v))
        })
        .to_vec()
    }

    /// The element count.
    pub(crate) fn len(&self) -> usize {
        each_table!(*self, |v| v.len())
    }

    /// The elements' dtype.
    pub(crate) fn kind(&self) -> DtypeKind {
        self.elements_of(false).0
    }

    /// The dtype and each element's bits, zero-extended as a scalar constant's are.
    pub(crate) fn elements(&self) -> (DtypeKind, Vec<u64>) {
        self.elements_of(true)
    }

    /// The dtype and, when `all`, each element's bits (none otherwise: the dtype alone).
    fn elements_of(&self, all: bool) -> (DtypeKind, Vec<u64>) {
        fn bits<T: Copy>(v: &[T], all: bool, f: impl Fn(T) -> u64) -> Vec<u64> {
            let n = if all { v.len() } else { 0 };
            v[..n].iter().map(|&x| f(x)).collect()
        }
        match *self {
            TableData::Bool(v) => (DtypeKind::Bool, bits(v, all, u64::from)),
            TableData::I8(v) => (DtypeKind::I8, bits(v, all, |x| x as u8 as u64)),
            TableData::I16(v) => (DtypeKind::I16, bits(v, all, |x| x as u16 as u64)),
            TableData::I32(v) => (DtypeKind::I32, bits(v, all, |x| x as u32 as u64)),
            TableData::I64(v) => (DtypeKind::I64, bits(v, all, |x| x as u64)),
            TableData::Isize(v) => (DtypeKind::Isize, bits(v, all, |x| x as i64 as u64)),
            TableData::U8(v) => (DtypeKind::U8, bits(v, all, u64::from)),
            TableData::U16(v) => (DtypeKind::U16, bits(v, all, u64::from)),
            TableData::U32(v) => (DtypeKind::U32, bits(v, all, u64::from)),
            TableData::U64(v) => (DtypeKind::U64, bits(v, all, |x| x)),
            TableData::Usize(v) => (DtypeKind::Usize, bits(v, all, |x| x as u64)),
            TableData::F32(v) => (DtypeKind::F32, bits(v, all, |x| u64::from(x.to_bits()))),
            TableData::F64(v) => (DtypeKind::F64, bits(v, all, f64::to_bits)),
        }
    }
}

/// Where the runtime places the program's module arrays: in constant memory while they
/// fit in it together (64 KB a module; what CUDA's `__constant__` gives, and Numba's
/// `cuda.const.array_like`), else in global memory as read-only data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TableSpace {
    Constant,
    Global,
}

impl TableSpace {
    /// Constant memory's size: what every module's arrays share.
    pub(crate) const CONSTANT_BYTES: usize = 64 * 1024;

    /// The space for arrays of `bytes` together.
    pub(crate) fn for_bytes(bytes: usize) -> TableSpace {
        if bytes <= Self::CONSTANT_BYTES {
            TableSpace::Constant
        } else {
            TableSpace::Global
        }
    }
}

macro_rules! constructors {
    ($($name:ident: $t:ty => $kind:ident, |$v:ident| $bits:expr;)*) => {
        impl ConstValue {
            $(
                #[doc = concat!("A `", stringify!($t), "` constant.")]
                pub const fn $name(c_name: &'static str, $v: $t) -> ConstValue {
                    ConstValue { c_name, kind: DtypeKind::$kind, bits: $bits, table: None }
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
    /// A module array (a table or a `#[gpu_global]`) and its extents (`&[rows, cols]`),
    /// whose product is its elements' count (the generated code takes both from one
    /// array).
    pub const fn table(
        c_name: &'static str,
        array: &'static dyn ModuleArrayDyn,
        dims: &'static [usize],
    ) -> Self {
        ConstValue {
            c_name,
            kind: DtypeKind::U8,
            bits: 0,
            table: Some((array, dims)),
        }
    }

    /// The bytes a table may take in constant memory, rounded up to 16 so that padding
    /// between arrays is counted (an empty one is declared with one element); 0 for a
    /// scalar and a device global (a pointer; see [`constant_global_bytes`](Self::constant_global_bytes)).
    pub(crate) fn table_bytes(&self) -> usize {
        match self.table {
            Some((array, _)) if array.global().is_none() => constant_bytes(array),
            _ => 0,
        }
    }

    /// The bytes a `#[gpu_global(constant)]` takes in constant memory (as
    /// [`table_bytes`](Self::table_bytes) rounds); 0 for anything else.
    pub(crate) fn constant_global_bytes(&self) -> usize {
        match self.table {
            Some((array, _)) if array.global().is_some_and(|g| g.constant) => constant_bytes(array),
            _ => 0,
        }
    }

    /// The device global this names, if it names one.
    pub(crate) fn global(&self) -> Option<(GlobalInfo, &'static dyn ModuleArrayDyn)> {
        let (array, _) = self.table?;
        Some((array.global()?, array))
    }

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
    ///
    /// A table is a `__constant__` (or, in [`TableSpace::Global`], a `__device__ const`)
    /// array of its extents with every element's exact bits; an extent of 0 is declared as
    /// 1 (C has no empty arrays), which the kernel's checks never read. A device global is
    /// a pointer the runtime sets at load (`__device__ T* name;`), a constant one a
    /// `__constant__` array the runtime fills.
    pub(crate) fn c_definition(&self, space: TableSpace) -> String {
        let Some((array, dims)) = self.table else {
            let ty = self.kind.c_name();
            let value = c_value(self.kind, self.bits);
            return format!("static constexpr {ty} {} = {value};\n", self.c_name);
        };
        let ty = array.elements().kind().c_name();
        let extents: String = dims.iter().map(|d| format!("[{}]", d.max(&1))).collect();
        match array.global() {
            // Constant memory the runtime fills from the global's device copy when it
            // loads the module, and again at every host write.
            Some(g) if g.constant => {
                return format!("__constant__ {ty} {}{extents};\n", self.c_name);
            }
            // A pointer the runtime sets, when it loads the module on a device, to that
            // device's copy (one-dimensional).
            Some(_) => return format!("__device__ {ty}* {};\n", self.c_name),
            None => {}
        }
        let (kind, values) = array.elements().elements();
        let elements: Vec<String> = values.iter().map(|&b| c_value(kind, b)).collect();
        let space = match space {
            TableSpace::Constant => "__constant__",
            TableSpace::Global => "__device__ const",
        };
        format!(
            "{space} {ty} {}{extents} = {{{}}};\n",
            self.c_name,
            elements.join(", ")
        )
    }
}

/// The bytes `array` takes in constant memory, rounded up to 16 so that padding between
/// arrays is counted (an empty one is declared with one element).
fn constant_bytes(array: &dyn ModuleArrayDyn) -> usize {
    let data = array.elements();
    (data.kind().size() * data.len().max(1)).next_multiple_of(16)
}

/// A value of `kind` with `bits` as a C constant expression: the exact bits for every
/// dtype (floats through `__builtin_bit_cast`, so NaN payloads and signed zeros survive).
fn c_value(kind: DtypeKind, bits: u64) -> String {
    let ty = kind.c_name();
    match kind {
        DtypeKind::Bool => (bits != 0).to_string(),
        // The 8- and 16-bit integers: their bits as an `unsigned int` converted to the
        // type, which keeps them (modulo 2^8 or 2^16).
        k if k.size() <= 2 => format!("(({ty}){bits:#x}u)"),
        k if k.size() == 4 => format!("__builtin_bit_cast({ty}, {:#010x}u)", bits as u32),
        _ => format!("__builtin_bit_cast({ty}, {bits:#018x}ull)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::def::module_array::DeviceGlobal;

    #[test]
    fn definitions_carry_the_exact_bits() {
        assert_eq!(
            ConstValue::usize("gt_c0_k", 16).c_definition(TableSpace::Constant),
            "static constexpr unsigned long long gt_c0_k = \
             __builtin_bit_cast(unsigned long long, 0x0000000000000010ull);\n"
        );
        assert_eq!(
            ConstValue::i32("k_M", -1).c_definition(TableSpace::Constant),
            "static constexpr int k_M = __builtin_bit_cast(int, 0xffffffffu);\n"
        );
        assert_eq!(
            ConstValue::f32("k_X", -0.0).c_definition(TableSpace::Constant),
            "static constexpr float k_X = __builtin_bit_cast(float, 0x80000000u);\n"
        );
        assert_eq!(
            ConstValue::bool("k_B", true).c_definition(TableSpace::Constant),
            "static constexpr bool k_B = true;\n"
        );
        assert_eq!(
            ConstValue::i8("k_N", -2).c_definition(TableSpace::Constant),
            "static constexpr signed char k_N = ((signed char)0xfeu);\n"
        );
        assert_eq!(ConstValue::isize("k_I", -2).bits(), u64::MAX - 1);
        assert_eq!(
            ConstValue::table("gt_t0_k", &[[1.0f32, -0.0], [0.5, 2.0]], &[2, 2])
                .c_definition(TableSpace::Constant),
            "__constant__ float gt_t0_k[2][2] = {__builtin_bit_cast(float, 0x3f800000u), \
             __builtin_bit_cast(float, 0x80000000u), __builtin_bit_cast(float, 0x3f000000u), \
             __builtin_bit_cast(float, 0x40000000u)};\n"
        );
        assert_eq!(
            ConstValue::table("gt_t1_k", &[0i8; 0], &[0]).c_definition(TableSpace::Global),
            "__device__ const signed char gt_t1_k[1] = {};\n"
        );
        assert_eq!(
            ConstValue::table("gt_t2_k", &[1u16, 2, 3], &[3]).table_bytes(),
            16
        );
        assert_eq!(
            ConstValue::table("gt_t3_k", &[0f64; 0], &[0]).table_bytes(),
            16
        );
        // Device globals: a pointer the runtime sets, constant memory it fills; neither
        // counts as a table, and their initial values are not in the source.
        static HIST: DeviceGlobal<[u32; 5]> = DeviceGlobal::__new([7; 5], "HIST");
        static TAPS: DeviceGlobal<[f32; 3], true> = DeviceGlobal::__new([1.0; 3], "TAPS");
        let hist = ConstValue::table("gt_t4_k", &HIST, &[5]);
        assert_eq!(
            hist.c_definition(TableSpace::Constant),
            "__device__ unsigned int* gt_t4_k;\n"
        );
        assert_eq!((hist.table_bytes(), hist.constant_global_bytes()), (0, 0));
        let taps = ConstValue::table("gt_t5_k", &TAPS, &[3]);
        assert_eq!(
            taps.c_definition(TableSpace::Global),
            "__constant__ float gt_t5_k[3];\n"
        );
        assert_eq!((taps.table_bytes(), taps.constant_global_bytes()), (0, 16));
        assert_eq!(
            HIST.elements().bytes(),
            [7u32; 5]
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>()
        );
        assert_eq!(ConstValue::f32("k_X", 1.0).table_bytes(), 0);
        assert_eq!(ConstValue::f64("k_D", 1.5).bits(), 1.5f64.to_bits());
    }
}
