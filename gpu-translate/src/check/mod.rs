//! The check pass: between inference and emission.
//!
//! Contract: [`check`] either reports every error of the body (each on its tokens) or
//! returns a kernel in which every type is resolved, every operation is valid for its
//! operand types, every access whose index is provably in range is marked
//! [`Check::Proven`](crate::ir::Check::Proven), and every one in range on launches that
//! meet the kernel's fast-path conditions [`Check::Fast`](crate::ir::Check::Fast). The emitters take only that output, so
//! they cannot fail.

mod data_enums;
mod lambdas;
mod loans;
mod ops;
pub(crate) use ops::{LOCAL_BYTES_MAX, SHARED_BYTES_MAX};
mod prove;
mod resolve;
mod tile;
mod uniform;

use crate::diagnostics::Diagnostics;
use crate::ir::{Bound, Kernel, Prim, RTy};
use crate::lower::Lowered;
use crate::parse::signature::KernelSignature;

/// What a resolved type permits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// `bool`
    Bool,
    /// `f32 f64 f16 bf16`, or `T: Float` (or `T: MmaOperand`).
    Float,
    /// `i8 i16 i32 i64 isize`
    SignedInt,
    /// `u8 u16 u32 u64 usize`
    UnsignedInt,
    /// `T: Int`: an integer of unknown sign.
    AnyInt,
    /// `T: Num`: any real number.
    AnyNum,
    /// `Complex32`, `Complex64`.
    Complex,
    /// A `#[gpu_struct]`: copied, passed, its fields read and written; no operators.
    Struct,
    /// A `#[gpu_enum]`: copied, passed, compared with `==` and `!=`, cast to integers.
    Enum,
}

impl Class {
    /// The class of `t`; `None` for a device function's opaque result.
    pub(crate) fn of(t: RTy, sig: &KernelSignature) -> Option<Class> {
        Some(match t {
            RTy::Prim(Prim::Bool) => Class::Bool,
            RTy::Prim(p) if p.is_complex() => Class::Complex,
            RTy::Prim(p) if p.is_float() => Class::Float,
            RTy::Prim(p) if p.is_signed() => Class::SignedInt,
            RTy::Prim(_) => Class::UnsignedInt,
            RTy::Generic(i) => match sig.generics[i].bound {
                Bound::Float | Bound::MmaOperand => Class::Float,
                Bound::Int => Class::AnyInt,
                Bound::Num => Class::AnyNum,
            },
            RTy::Struct(s) if sig.structs[s].is_enum() => Class::Enum,
            RTy::Struct(_) => Class::Struct,
            RTy::Opaque => return None,
        })
    }

    /// Whether it is an integer class.
    pub(crate) fn is_int(self) -> bool {
        matches!(self, Class::SignedInt | Class::UnsignedInt | Class::AnyInt)
    }

    /// The most bytes a value of `t` can take (over the dtypes a bound admits).
    pub(crate) fn max_size(t: RTy, sig: &KernelSignature) -> u64 {
        let size = match t {
            RTy::Prim(p) => p.size(),
            RTy::Generic(i) => Prim::ALL
                .into_iter()
                .filter(|d| d.satisfies(sig.generics[i].bound))
                .map(Prim::size)
                .max()
                .unwrap_or(8),
            RTy::Struct(s) => struct_size(&sig.structs, s),
            RTy::Opaque => 8,
        };
        size as u64
    }
}

/// The bytes of struct `s`: its fields' (a `#[gpu_struct]` has no padding).
pub(crate) fn struct_size(structs: &[crate::parse::structs::StructDef], s: usize) -> usize {
    use crate::parse::structs::FieldTy;
    structs[s]
        .fields
        .iter()
        .map(|f| {
            let one = match f.ty {
                FieldTy::Prim(p) => p.size(),
                FieldTy::Struct(inner) => struct_size(structs, inner),
            };
            one * f.len.unwrap_or(1) as usize
        })
        .sum()
}

/// Check a lowered body: resolve, validate, prove. Gives the checked kernel and what the
/// proofs found; `None` after reporting errors.
pub fn check(
    lowered: Lowered,
    sig: &KernelSignature,
    launch_threads: Option<u32>,
    diags: &mut Diagnostics,
) -> Option<(Kernel<RTy>, Proofs)> {
    let before = diags.len();
    let mut kernel = resolve::Resolver {
        types: lowered.types,
        diags,
        literal_calls: Vec::new(),
    }
    .kernel(lowered.kernel);
    if diags.len() > before {
        return None;
    }
    ops::Validator {
        k: &kernel,
        sig,
        diags,
    }
    .run();
    uniform::check_tile_uniformity(&kernel, diags);
    loans::check_loans(&kernel, diags);
    if diags.len() > before {
        return None;
    }
    crate::print_format::name_panics(&mut kernel);
    let mut body = std::mem::take(&mut kernel.body);
    let mut prover = prove::Prover::new(&kernel, &body, launch_threads, !sig.device);
    prover.block(&mut body);
    let proofs = Proofs {
        proven: prover.proven,
        fast: prover.versioned,
    };
    kernel.fast_path = std::mem::take(&mut prover.fast_path);
    kernel.body = body;
    Some((kernel, proofs))
}

/// What the prover did with a kernel's index checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Proofs {
    /// Checks proven redundant on every launch.
    pub proven: usize,
    /// Checks left out of the fast copy of the body (redundant when the fast-path
    /// conditions hold).
    pub fast: usize,
}
