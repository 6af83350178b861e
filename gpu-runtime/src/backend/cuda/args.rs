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
use gpu_contract::{DtypeKind, ElemKind, ParamDef, ParamKind};

use crate::compile::kernel_def::KernelDef;
use crate::error::{GpuError, Result};
use crate::host::args::{Arg, ArgValue};
use crate::Device;

/// The most C parameters a kernel's arguments expand to (a 3-D array is four).
pub(crate) const MAX_C_PARAMS: usize = 32;

/// The C parameter values of a launch; `values[..len]` are written. Each C parameter
/// starts at a slot: one slot for a pointer, an extent or a number, `size / 8` rounded up
/// for a struct passed by value. While every parameter is one slot (`count == len`, no
/// struct by value) parameter `k` is slot `k` and `starts` is not written; after a struct,
/// `starts[..count]` holds every parameter's first slot.
pub(crate) struct Packed {
    values: [MaybeUninit<u64>; MAX_C_PARAMS],
    len: usize,
    starts: [u8; MAX_C_PARAMS],
    count: usize,
}

impl Packed {
    /// No values yet.
    #[inline]
    pub(crate) fn new() -> Packed {
        Packed {
            values: [MaybeUninit::uninit(); MAX_C_PARAMS],
            len: 0,
            starts: [0; MAX_C_PARAMS],
            count: 0,
        }
    }

    /// Pointers to the written values, for the driver (valid while `self` is not moved
    /// or dropped), in `out`; returns how many.
    #[inline]
    pub(crate) fn pointers(&mut self, out: &mut [*mut c_void; MAX_C_PARAMS]) -> usize {
        if self.count == self.len {
            for (o, v) in out.iter_mut().zip(&mut self.values[..self.len]) {
                *o = v.as_mut_ptr().cast();
            }
        } else {
            for (o, &s) in out.iter_mut().zip(&self.starts[..self.count]) {
                *o = self.values[usize::from(s)].as_mut_ptr().cast();
            }
        }
        self.count
    }
}

/// Check `args` against `def`'s parameters for `dtypes` on `device`, and pack them.
///
/// Every launch runs this, so the loop only compares; a mismatch is explained by
/// [`mismatch`], out of line.
#[inline]
pub(crate) fn check_and_pack(
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    device: &Device,
    args: &[Arg<'_>],
    packed: &mut Packed,
) -> Result<()> {
    def.check_dtypes(dtypes)?;
    let params = def.params();
    if params.len() != args.len() {
        return Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: format!("{} arguments for {} parameters", args.len(), params.len()),
        });
    }
    let mut len = 0;
    let mut count = 0;
    for (p, a) in params.iter().zip(args) {
        let fits = match (p.kind, a.value) {
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
                    rank: given_rank,
                    elem: given,
                    mutable: writable,
                    ..
                },
            ) => {
                let rank = rank.min(3);
                // The extents past an array's rank are 1, not its own: a 2-D array of
                // (n, 0) is no slice of n.
                let ok = usize::from(given_rank) == rank
                    && elem.resolve(dtypes) == Some(given)
                    && (writable || !mutable)
                    && d == device
                    && (ptr % 16 == 0 || !def.vector_params().contains(&p.name))
                    && len + 1 + rank <= MAX_C_PARAMS;
                if ok {
                    packed.values[len] = MaybeUninit::new(ptr);
                    for (slot, &e) in packed.values[len + 1..len + 1 + rank]
                        .iter_mut()
                        .zip(&extents)
                    {
                        *slot = MaybeUninit::new(e as u64);
                    }
                    if count != len {
                        for k in 0..=rank {
                            packed.starts[count + k] = (len + k) as u8;
                        }
                    }
                    count += 1 + rank;
                    len += 1 + rank;
                }
                ok
            }
            (ParamKind::Scalar { ty }, ArgValue::Scalar { kind, bits }) => {
                // A complex number is two C parameters, its parts.
                let parts = 1 + usize::from(kind.is_complex());
                let ok = ty.resolve(dtypes) == Some(ElemKind::Dtype(kind))
                    && len + parts <= MAX_C_PARAMS;
                if ok {
                    packed.values[len] = MaybeUninit::new(bits[0]);
                    packed.values[len + parts - 1] = MaybeUninit::new(bits[parts - 1]);
                    if count != len {
                        for k in 0..parts {
                            packed.starts[count + k] = (len + k) as u8;
                        }
                    }
                    count += parts;
                    len += parts;
                }
                ok
            }
            (ParamKind::Scalar { ty }, ArgValue::Record { layout, bytes }) => {
                // The struct's bytes in whole slots, which are 8-byte aligned: as aligned
                // as any struct of dtypes.
                let slots = bytes.len().div_ceil(8);
                let ok = ty.resolve(dtypes) == Some(ElemKind::Struct(layout))
                    && layout.align <= 8
                    && len + slots <= MAX_C_PARAMS;
                if ok {
                    for (k, chunk) in bytes.chunks(8).enumerate() {
                        let mut word = [0u8; 8];
                        word[..chunk.len()].copy_from_slice(chunk);
                        packed.values[len + k] = MaybeUninit::new(u64::from_ne_bytes(word));
                    }
                    if count == len {
                        // The first struct: until now each C parameter was one slot.
                        for (k, start) in packed.starts[..count].iter_mut().enumerate() {
                            *start = k as u8;
                        }
                    }
                    packed.starts[count] = len as u8;
                    count += 1;
                    len += slots;
                }
                ok
            }
            _ => false,
        };
        if !fits {
            packed.len = 0;
            packed.count = 0;
            return Err(mismatch(def, dtypes, device, p, a, len));
        }
    }
    packed.len = len;
    packed.count = count;
    Ok(())
}

/// Why argument `a` does not fit parameter `p` (`len` C parameters packed before it).
#[cold]
#[inline(never)]
fn mismatch(
    def: &'static KernelDef,
    dtypes: &[DtypeKind],
    device: &Device,
    p: &ParamDef,
    a: &Arg<'_>,
    len: usize,
) -> GpuError {
    let wrong = |what: String| GpuError::InvalidLaunch {
        kernel: def.name(),
        reason: format!("argument `{}`: {what}", p.name),
    };
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
                rank: given_rank,
                elem: given,
                mutable: writable,
                ..
            },
        ) => {
            let want = elem.resolve(dtypes);
            if usize::from(given_rank) != rank.min(3) {
                wrong(format!(
                    "a {given_rank}-D array for a {}-D parameter",
                    rank.min(3)
                ))
            } else if want != Some(given) {
                wrong(format!("an array of {given} for {want:?}"))
            } else if mutable && !writable {
                wrong("the kernel writes it: pass it `&mut`".into())
            } else if d != device {
                GpuError::DeviceMismatch {
                    kernel: def.name(),
                    param: p.name,
                    expected: device.describe(),
                    found: d.describe(),
                }
            } else if ptr % 16 != 0 && def.vector_params().contains(&p.name) {
                // `load4`/`store4` on a misaligned address would fault the context.
                wrong("not 16-byte aligned, as load4/store4 need".into())
            } else {
                too_many(def, len + 1 + rank.min(3))
            }
        }
        (ParamKind::Scalar { ty }, ArgValue::Record { layout, bytes }) => {
            let want = ty.resolve(dtypes);
            if want != Some(ElemKind::Struct(layout)) {
                wrong(format!("a {} for {want:?}", layout.path()))
            } else if layout.align > 8 {
                wrong(format!(
                    "{} is aligned to {} bytes; structs passed by value may be aligned to 8 at \
                     most (pass it in a one-element array)",
                    layout.path(),
                    layout.align
                ))
            } else {
                too_many(def, len + bytes.len().div_ceil(8))
            }
        }
        (ParamKind::Scalar { ty }, ArgValue::Scalar { kind, .. }) => {
            let want = ty.resolve(dtypes);
            if want != Some(ElemKind::Dtype(kind)) {
                wrong(format!("a {kind} for {want:?}"))
            } else {
                too_many(def, len + 1 + usize::from(kind.is_complex()))
            }
        }
        _ => wrong(format!("not a {:?}", p.kind)),
    }
}

fn too_many(def: &'static KernelDef, needed: usize) -> GpuError {
    GpuError::InvalidLaunch {
        kernel: def.name(),
        reason: format!("more than {MAX_C_PARAMS} C parameters ({needed} needed)"),
    }
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
            Some(ArgValue::Scalar { bits, .. }) => bits[0],
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
