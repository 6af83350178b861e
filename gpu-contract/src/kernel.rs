//! How the attribute describes a kernel's parameters and dtype parameters to the runtime.
//!
//! Rule: the order of [`ParamDef`]s is the order of the Rust parameters, and each expands
//! to C parameters in a fixed way the launcher and the translator share: an array is its
//! pointer then one `unsigned long long` per axis (its length, or its rows and columns,
//! ...); a scalar is its value.

use crate::dtype::{Bound, DtypeKind};

/// A kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamDef {
    /// The Rust name.
    pub name: &'static str,
    /// What it is.
    pub kind: ParamKind,
}

/// The dtype of an array's elements or of a scalar: a dtype, or the kernel's dtype
/// parameter number `i` (resolved by the launch's signature).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElemType {
    /// This dtype.
    Dtype(DtypeKind),
    /// Dtype parameter number `i`.
    Generic(u8),
    /// A `#[gpu_struct]`.
    Struct(&'static crate::StructLayout),
}

impl ElemType {
    /// The element type for a launch whose dtype parameters are `dtypes`; `None` when
    /// the index is past them.
    pub fn resolve(self, dtypes: &[DtypeKind]) -> Option<crate::ElemKind> {
        match self {
            ElemType::Dtype(d) => Some(crate::ElemKind::Dtype(d)),
            ElemType::Generic(i) => dtypes
                .get(usize::from(i))
                .copied()
                .map(crate::ElemKind::Dtype),
            ElemType::Struct(s) => Some(crate::ElemKind::Struct(s)),
        }
    }
}

/// The kinds of kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// `&[T]`, `&DeviceArray2<T>`, `&DeviceArray3<T>` (`mutable: false`) or their `&mut` forms: a
    /// pointer and `rank` extents in C.
    Array {
        /// Whether the kernel may write it.
        mutable: bool,
        /// 1, 2 or 3.
        rank: usize,
        /// Its elements' dtype.
        elem: ElemType,
    },
    /// A value of this dtype.
    Scalar {
        /// Its dtype.
        ty: ElemType,
    },
    /// A raw kernel's pointer parameter (`const T*`, `T*`): the address alone.
    Pointer {
        /// Whether the kernel may write through it.
        mutable: bool,
    },
}

impl ParamKind {
    /// How many C parameters it expands to.
    pub const fn c_params(self) -> usize {
        match self {
            ParamKind::Array { rank, .. } => 1 + rank,
            ParamKind::Scalar { .. } | ParamKind::Pointer { .. } => 1,
        }
    }
}

/// A generic dtype parameter of a kernel, such as `T: Float`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GenericParam {
    /// The Rust name.
    pub name: &'static str,
    /// The type name the CUDA source uses for it.
    pub c_name: &'static str,
    /// Its bound.
    pub bound: Bound,
}

/// The C name of a kernel's fully checked entry: a kernel with a fast path has two
/// `__global__` functions in its source, `c_name` (the checks its fast-path conditions
/// make redundant left out) and this one (every check), and the launcher picks per launch.
pub fn checked_entry(c_name: &str) -> String {
    format!("gt_checked_{c_name}")
}

/// The C macro a device function's integer operations read for whether overflow is
/// checked: its own crate's `debug_assertions`, defined when a kernel is specialised (a
/// kernel's own body reads `GT_OVERFLOW_CHECKS`, from its options).
pub fn device_overflow_checks(c_name: &str) -> String {
    format!("GT_OVERFLOW_CHECKS_{c_name}")
}
