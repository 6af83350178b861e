//! A launch's arguments checked against the kernel and packed for the driver.
//!
//! Contract: nothing the launcher hands over is trusted. Each [`Arg`] must be what the
//! kernel's [`ParamDef`] says (an array of the right element dtype, writable where the
//! kernel writes, on the launch's device; a scalar of the right dtype), with element
//! dtypes resolved by the launch's dtype signature, which must satisfy the kernel's bounds.
//! Only then are the C parameters laid out (an array's address, then its extents; a
//! scalar's bits), in the order the translator's C declares them. The fast path's
//! conditions read the same checked values.

use std::ffi::c_void;
use std::mem::MaybeUninit;

use gpu_contract::fast_path::LaunchValues;
use gpu_contract::{DtypeKind, ParamKind};

use crate::compile::kernel_def::KernelDef;
use crate::error::{GpuError, Result};
use crate::host::args::{Arg, ArgValue};
use crate::Device;

/// The most C parameters a kernel's arguments expand to (a 3-D array is four).
pub(crate) const MAX_C_PARAMS: usize = 32;

/// The C parameter values of a launch; `values[..len]` are written.
pub(crate) struct Packed {
    values: [MaybeUninit<u64>; MAX_C_PARAMS],
    len: usize,
}

impl Packed {
    /// Pointers to the written values, for the driver (valid while `self` is not moved
    /// or dropped), in `out`; returns how many.
    #[inline]
    pub(crate) fn pointers(&mut self, out: &mut [*mut c_void; MAX_C_PARAMS]) -> usize {
        for (o, v) in out.iter_mut().zip(&mut self.values[..self.len]) {
            *o = v.as_mut_ptr().cast();
        }
        self.len
    }
}

/// Check `args` against `def`'s parameters for `dtypes` on `device`, and pack them.
#[inline]
pub(crate) fn check_and_pack(
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    device: &Device,
    args: &[Arg<'_>],
) -> Result<Packed> {
    def.check_dtypes(dtypes)?;
    let params = def.params();
    let wrong = |name: &str, what: String| GpuError::InvalidLaunch {
        kernel: def.name(),
        reason: format!("argument `{name}`: {what}"),
    };
    if params.len() != args.len() {
        return Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: format!("{} arguments for {} parameters", args.len(), params.len()),
        });
    }
    let mut packed = Packed {
        values: [MaybeUninit::uninit(); MAX_C_PARAMS],
        len: 0,
    };
    let mut push = |v: u64| -> Result<()> {
        if packed.len == MAX_C_PARAMS {
            return Err(GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: format!("more than {MAX_C_PARAMS} C parameters"),
            });
        }
        packed.values[packed.len] = MaybeUninit::new(v);
        packed.len += 1;
        Ok(())
    };
    for (p, a) in params.iter().zip(args) {
        match (p.kind, a.value) {
            (
                ParamKind::Array {
                    mutable,
                    rank,
                    elem,
                },
                ArgValue::Array {
                    device: d,
                    ptr,
                    extents,
                    elem: given,
                    mutable: writable,
                },
            ) => {
                let want = elem.resolve(dtypes);
                if want != Some(given) {
                    return Err(wrong(p.name, format!("an array of {given} for {want:?}")));
                }
                if mutable && !writable {
                    return Err(wrong(p.name, "the kernel writes it: pass it `&mut`".into()));
                }
                if d != device {
                    return Err(GpuError::DeviceMismatch {
                        kernel: def.name(),
                        param: p.name,
                        expected: device.describe(),
                        found: d.describe(),
                    });
                }
                // `load4`/`store4` on a misaligned address would fault the context.
                if ptr % 16 != 0 && def.vector_params().contains(&p.name) {
                    return Err(wrong(
                        p.name,
                        "not 16-byte aligned, as load4/store4 need".into(),
                    ));
                }
                push(ptr)?;
                for &e in extents.iter().take(rank.min(3)) {
                    push(e as u64)?;
                }
            }
            (ParamKind::Scalar { ty }, ArgValue::Scalar { kind, bits }) => {
                let want = ty.resolve(dtypes);
                if want != Some(kind) {
                    return Err(wrong(p.name, format!("a {kind} for {want:?}")));
                }
                push(bits)?;
            }
            _ => return Err(wrong(p.name, format!("not a {:?}", p.kind))),
        }
    }
    Ok(packed)
}

/// The launch-uniform values a fast-path condition reads: the checked arguments, the
/// kernel's module constants and the final dimensions.
pub(crate) struct Uniforms<'a, 'b> {
    pub args: &'a [Arg<'b>],
    pub constants: &'static [crate::compile::module_const::ConstValue],
    pub grid: [u64; 3],
    pub block: [u64; 3],
}

impl LaunchValues for Uniforms<'_, '_> {
    fn scalar(&self, param: u16) -> u64 {
        match self.args.get(usize::from(param)).map(|a| a.value) {
            Some(ArgValue::Scalar { bits, .. }) => bits,
            // The translator names only unsigned scalars; anything else saturates.
            _ => u64::MAX,
        }
    }

    fn extent(&self, param: u16, axis: u8) -> u64 {
        match self.args.get(usize::from(param)).map(|a| a.value) {
            Some(ArgValue::Array { extents, .. }) => extents
                .get(usize::from(axis))
                .map_or(u64::MAX, |&e| e as u64),
            _ => u64::MAX,
        }
    }

    fn constant(&self, i: u16) -> u64 {
        // The translator names only unsigned constants; anything else saturates.
        self.constants
            .get(usize::from(i))
            .filter(|c| !c.kind().is_signed() && c.kind().is_int())
            .map_or(u64::MAX, |c| c.bits())
    }

    fn block(&self) -> [u64; 3] {
        self.block
    }

    fn grid(&self) -> [u64; 3] {
        self.grid
    }
}
