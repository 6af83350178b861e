//! Argument codes: one number for what an argument is (an array's rank, writability and
//! element dtype, or a scalar's dtype), the codes a loaded signature's parameters expect,
//! and how many C parameters a launch may pass. A launch whose arguments' codes equal its
//! parameters' takes the quick path.

use gpu_contract::{DtypeKind, ElemKind, ParamKind};

use crate::def::kernel::KernelDef;

/// The most C parameters a kernel's arguments expand to (a 3-D array is four).
pub(crate) const MAX_C_PARAMS: usize = 32;

/// The code of an argument that the quick comparison does not cover (a struct passed by
/// value, an array of structs): no parameter expects it.
pub(crate) const NO_CODE: u32 = 0;

/// One number for an array argument: its rank, writability and element dtype. Equal
/// codes mean the same kind of argument; an array of structs gets [`NO_CODE`] and is
/// compared field by field instead.
#[inline]
pub(crate) const fn array_code(rank: u8, mutable: bool, elem: ElemKind) -> u32 {
    match elem {
        ElemKind::Dtype(d) => {
            1 | (rank as u32) << 2 | (mutable as u32) << 4 | (d.index() as u32) << 8
        }
        ElemKind::Struct(_) => NO_CODE,
    }
}

/// One number for a scalar argument of dtype `kind`, unequal to every array's.
#[inline]
pub(crate) const fn scalar_code(kind: DtypeKind) -> u32 {
    2 | (kind.index() as u32) << 8
}

/// What a loaded signature's parameters expect, for the launches that pass exactly that
/// (the attribute's launchers always do): one code per parameter, so checking an
/// argument is one comparison, and the arrays that `load4`/`store4` need aligned.
/// A launch whose arguments differ in any way goes through the full check (the host API's
/// `packing.rs`), which accepts or explains it; a signature with a struct parameter (by value or as an
/// array's element) has no quick form.
pub(crate) struct ParamCodes {
    /// [`array_code`] or [`scalar_code`] of each parameter, resolved for the signature.
    pub codes: Box<[u32]>,
    /// Bit `k`: parameter `k`'s array must start 16-byte aligned.
    pub aligned: u32,
}

impl ParamCodes {
    /// The quick form of `def`'s parameters for `dtypes` (which satisfy its bounds), if
    /// every parameter has one and they fit in [`MAX_C_PARAMS`] C parameters.
    pub(crate) fn new(def: &'static KernelDef, dtypes: &[DtypeKind]) -> Option<ParamCodes> {
        let mut codes = Vec::with_capacity(def.params().len());
        let mut aligned = 0u32;
        let mut slots = 0;
        for (k, p) in def.params().iter().enumerate() {
            let code = match p.kind {
                ParamKind::Array {
                    mutable,
                    rank,
                    elem,
                } => {
                    let rank = rank.min(3);
                    slots += 1 + rank;
                    if def.vector_params().contains(&p.name) {
                        aligned |= 1u32.checked_shl(k as u32)?;
                    }
                    array_code(rank as u8, mutable, elem.resolve(dtypes)?)
                }
                ParamKind::Scalar { ty } => match ty.resolve(dtypes)? {
                    ElemKind::Dtype(kind) => {
                        slots += 1 + usize::from(kind.is_complex());
                        scalar_code(kind)
                    }
                    ElemKind::Struct(_) => return None,
                },
                _ => return None,
            };
            if code == NO_CODE {
                return None;
            }
            codes.push(code);
        }
        (slots <= MAX_C_PARAMS).then(|| ParamCodes {
            codes: codes.into_boxed_slice(),
            aligned,
        })
    }
}
