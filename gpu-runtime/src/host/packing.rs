//! A launch's arguments checked against the kernel and packed for the driver: in full
//! (`check_and_pack`, which explains a mismatch), or, for a loaded signature, by comparing
//! each argument's code with what its parameter expects (`quick_pack`).
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

use crate::def::kernel::KernelDef;
use crate::error::{GpuError, Result};
use crate::host::args::{Arg, ArgValue};
use crate::host::device::Device;
use crate::launch::codes::{ParamCodes, MAX_C_PARAMS};
use crate::launch::dims::{Dim3, ValidLaunch};

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

/// Pack `args` into `out` if each is exactly what its parameter expects (`expected`, a
/// loaded signature's codes), on `device`: the pointers the driver takes, one per C
/// parameter (valid while `out` is borrowed); `None` if not.
#[inline]
pub(crate) fn quick_pack<'o>(
    expected: &ParamCodes,
    device: &Device,
    args: &[Arg<'_>],
    out: &'o mut QuickPacked,
) -> Option<&'o mut [*mut c_void]> {
    if args.len() != expected.codes.len() {
        return None;
    }
    let mut len = 0;
    for (k, (a, &code)) in args.iter().zip(expected.codes.iter()).enumerate() {
        if a.code != code {
            return None;
        }
        match a.value {
            ArgValue::Array {
                device: d,
                ptr,
                extents,
                rank,
                ..
            } => {
                if d != device || (expected.aligned >> k & 1 != 0 && ptr % 16 != 0) {
                    return None;
                }
                // Equal codes: the rank is the parameter's, and `ParamCodes::new` counted its
                // slots. The extents past the rank land in slots the next parameter
                // overwrites, or past `len`.
                let slots = out.values.get_mut(len..len + 4)?;
                let [e0, e1, e2] = extents.map(|e| e as u64);
                slots.copy_from_slice(&[ptr, e0, e1, e2].map(MaybeUninit::new));
                len += 1 + usize::from(rank);
            }
            ArgValue::Scalar { kind, bits } => {
                // A complex number's parts are two C parameters; anything else is one.
                let slots = out.values.get_mut(len..len + 2)?;
                slots.copy_from_slice(&bits.map(MaybeUninit::new));
                len += 1 + usize::from(kind.is_complex());
            }
            ArgValue::Record { .. } => return None,
        }
    }
    if len > MAX_C_PARAMS {
        return None;
    }
    let values = out.values.as_mut_ptr();
    for (k, p) in out.pointers[..len].iter_mut().enumerate() {
        p.write(values.wrapping_add(k).cast());
    }
    // SAFETY: the loop above initialised `pointers[..len]`; `MaybeUninit<T>` has
    // `T`'s layout.
    Some(unsafe {
        &mut *(&mut out.pointers[..len] as *mut [MaybeUninit<*mut c_void>] as *mut [*mut c_void])
    })
}

/// Where a quick launch packs its C parameters: their values and the pointers to them
/// the driver takes, written only as far as the launch needs (no zeroing per launch).
pub(crate) struct QuickPacked {
    /// Three slots more than the most C parameters, so an array's address and three
    /// extents are written at once, whatever its rank.
    values: [MaybeUninit<u64>; MAX_C_PARAMS + 3],
    pointers: [MaybeUninit<*mut c_void>; MAX_C_PARAMS],
}

impl QuickPacked {
    #[inline]
    pub(crate) fn new() -> QuickPacked {
        QuickPacked {
            values: [MaybeUninit::uninit(); MAX_C_PARAMS + 3],
            pointers: [MaybeUninit::uninit(); MAX_C_PARAMS],
        }
    }
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
    args: &'a [Arg<'b>],
    def: &'static KernelDef,
    valid: &'a ValidLaunch,
}

impl<'a, 'b> Uniforms<'a, 'b> {
    /// The values for a launch of `def` with (checked) `args` in `valid`'s shape, read
    /// when a condition asks for them.
    #[inline]
    pub(crate) fn of(
        def: &'static KernelDef,
        args: &'a [Arg<'b>],
        valid: &'a ValidLaunch,
    ) -> Uniforms<'a, 'b> {
        Uniforms { args, def, valid }
    }
}

/// The three extents of `d`, widened.
fn widen(d: Dim3) -> [u64; 3] {
    [d.x, d.y, d.z].map(u64::from)
}

impl LaunchValues for Uniforms<'_, '_> {
    fn scalar(&self, param: u16) -> u64 {
        match self.args.get(usize::from(param)).map(|a| &a.value) {
            Some(ArgValue::Scalar { bits, .. }) => bits[0],
            // The translator names only unsigned scalars; anything else saturates.
            _ => u64::MAX,
        }
    }

    fn extent(&self, param: u16, axis: u8) -> u64 {
        match self.args.get(usize::from(param)).map(|a| &a.value) {
            Some(ArgValue::Array { extents, .. }) => extents
                .get(usize::from(axis))
                .map_or(u64::MAX, |&e| e as u64),
            _ => u64::MAX,
        }
    }

    fn constant(&self, i: u16) -> u64 {
        // The translator names only unsigned constants; anything else saturates.
        self.def
            .constants()
            .get(usize::from(i))
            .filter(|c| !c.kind().is_signed() && c.kind().is_int())
            .map_or(u64::MAX, |c| c.bits())
    }

    fn block(&self) -> [u64; 3] {
        widen(self.valid.block)
    }

    fn grid(&self) -> [u64; 3] {
        widen(self.valid.grid)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicU32;

    use gpu_contract::{Bound, ElemType, GenericParam, KernelOptions};
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::def::kernel::KernelParts;
    use crate::host::args::{array2, array2_mut, array3, array3_mut, SliceArg, SliceArgMut};
    use crate::host::array::DeviceArray;

    /// A kernel of every parameter form the quick comparison covers: a generic 1-D
    /// array, a writable 2-D one, a 3-D one, a writable vector (`load4`) array, an
    /// unsigned and a generic scalar.
    fn definition() -> &'static KernelDef {
        const T: ElemType = ElemType::Generic(0);
        const F32: ElemType = ElemType::Dtype(DtypeKind::F32);
        let array = |name, mutable, rank, elem| ParamDef {
            name,
            kind: ParamKind::Array {
                mutable,
                rank,
                elem,
            },
        };
        let params = vec![
            array("a", false, 1, T),
            array("m", true, 2, F32),
            array("c", false, 3, ElemType::Dtype(DtypeKind::I32)),
            array("v", true, 1, F32),
            ParamDef {
                name: "n",
                kind: ParamKind::Scalar {
                    ty: ElemType::Dtype(DtypeKind::U32),
                },
            },
            ParamDef {
                name: "s",
                kind: ParamKind::Scalar { ty: T },
            },
        ];
        let parts = KernelParts {
            name: "quick_probe",
            c_name: "quick_probe",
            source: "",
            checked_at: 0,
            check_names: &[],
            generics: &[GenericParam {
                name: "T",
                c_name: "T",
                bound: Bound::Num,
            }],
            params: Box::leak(params.into_boxed_slice()),
            options: KernelOptions::default(),
            signatures: &[],
            device_fns: &[],
            waits: false,
            cooperative: false,
            tensor_cores: false,
            fast_path: &[],
            fast_path_fn: None,
            vector_params: &["v"],
            signature_slots: Box::leak(Box::new([const { AtomicU32::new(0) }; 64])),
            constants: &[],
            structs: &[],
            const_params: &[],
            const_args: &[],
            instances: None,
            local_bytes: 0,
            trait_impls: &[],
        };
        // SAFETY: never compiled or launched: the test only packs arguments.
        Box::leak(Box::new(unsafe { KernelDef::__from_parts(parts) }))
    }

    fn values(p: &mut Packed) -> Vec<u64> {
        let mut out = [std::ptr::null_mut(); MAX_C_PARAMS];
        let n = p.pointers(&mut out);
        // SAFETY: each pointer points to a written value of `p`.
        out[..n]
            .iter()
            .map(|&q| unsafe { *q.cast::<u64>() })
            .collect()
    }

    /// On random argument lists (each position drawn from right and wrong arguments of
    /// every kind, from two devices, aligned and not), the quick comparison accepts only
    /// lists the full check accepts, and packs the same C parameter values; and it
    /// accepts the lists the attribute's launchers pass.
    #[test]
    fn quick_comparison_accepts_only_what_the_full_check_accepts() {
        let def = definition();
        let (dev, other) = (Device::simulator(), Device::simulator());
        let a32: DeviceArray<f32> = dev.zeros(12).unwrap();
        let a64: DeviceArray<f64> = dev.zeros(7).unwrap();
        let ai32: DeviceArray<i32> = dev.zeros(5).unwrap();
        let elsewhere: DeviceArray<f32> = other.zeros(12).unwrap();
        let mut m = dev.zeros_2d::<f32>((3, 4)).unwrap();
        let m_ro = dev.zeros_2d::<f32>((4, 3)).unwrap();
        let mut m_i32 = dev.zeros_2d::<i32>((3, 4)).unwrap();
        let c = dev.zeros_3d::<i32>((2, 3, 4)).unwrap();
        let c_f32 = dev.zeros_3d::<f32>((2, 3, 4)).unwrap();
        let mut v = dev.zeros::<f32>(16).unwrap();
        let mut w = dev.zeros::<f32>(16).unwrap();
        let offset = a32.slice(1..9).unwrap();

        let mut c_mut = dev.zeros_3d::<i32>((2, 3, 4)).unwrap();
        let mut m2 = dev.zeros_2d::<f32>((5, 2)).unwrap();
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let (mut quick, mut agreed) = (0, 0);
        for _ in 0..20_000 {
            let t = rng.random_range(0..3);
            let dtypes = [[DtypeKind::F32, DtypeKind::F64, DtypeKind::I32][t]];
            // What a launcher passes for this signature ...
            let mut args: Vec<Arg<'_>> = vec![
                Arg::array(a32.__array()),
                Arg::array_mut(array2_mut(&mut m)),
                Arg::array(array3(&c)),
                Arg::array_mut(v.__array_mut()),
                Arg::scalar(9u32),
                [Arg::scalar(1.5f32), Arg::scalar(1.5f64), Arg::scalar(-3i32)]
                    .into_iter()
                    .nth(t)
                    .unwrap(),
            ];
            args[0] = [
                Arg::array(a32.__array()),
                Arg::array(a64.__array()),
                Arg::array(ai32.__array()),
            ]
            .into_iter()
            .nth(t)
            .unwrap();
            // ... then up to three positions replaced by anything, and sometimes one
            // argument too many or too few.
            let mut pool: Vec<Arg<'_>> = vec![
                Arg::array(a32.__array()),
                Arg::array(a64.__array()),
                Arg::array(ai32.__array()),
                Arg::array(elsewhere.__array()),
                Arg::array(array2(&m_ro)),
                Arg::array(array3(&c)),
                Arg::array(array3(&c_f32)),
                Arg::array(offset.__array()),
                Arg::scalar(7u32),
                Arg::scalar(7i32),
                Arg::scalar(2.5f32),
                Arg::scalar(2.5f64),
                Arg::array_mut(w.__array_mut()),
                Arg::array_mut(array2_mut(&mut m2)),
                Arg::array_mut(array2_mut(&mut m_i32)),
                Arg::array_mut(array3_mut(&mut c_mut)),
            ];
            // A complex number is two C parameters.
            #[cfg(feature = "complex")]
            pool.push(Arg::scalar(num_complex::Complex32::new(1.0, 2.0)));
            for _ in 0..rng.random_range(0..4) {
                let k = rng.random_range(0..args.len());
                args[k] = duplicate(&pool[rng.random_range(0..pool.len())]);
            }
            match rng.random_range(0..10) {
                0 => args.push(duplicate(&pool[rng.random_range(0..pool.len())])),
                1 => {
                    args.pop();
                }
                _ => {}
            }
            // Simulator arrays have no device address: give each a distinct one, some
            // not 16-byte aligned, so the packed values and the alignment test show.
            for (k, arg) in args.iter_mut().enumerate() {
                if let ArgValue::Array { ptr, .. } = &mut arg.value {
                    *ptr = 256 * (k as u64 + 1) + 4 * u64::from(rng.random_range(0..8) == 0);
                }
            }
            check_pair(def, &dtypes, &dev, &args, seed, &mut quick, &mut agreed);
        }
        eprintln!("{quick} lists quick, {agreed} accepted by the full check (seed {seed})");
        assert!(
            quick > 2_000 && agreed > quick,
            "the draws decide too little"
        );
    }

    /// A second argument like `a`, which safe code cannot make (`Arg` is not `Clone`):
    /// the lists drawn here may pass one writable array twice, as no launcher can.
    fn duplicate<'a>(a: &Arg<'a>) -> Arg<'a> {
        Arg {
            value: a.value,
            code: a.code,
        }
    }

    fn check_pair(
        def: &'static KernelDef,
        dtypes: &[DtypeKind],
        dev: &Device,
        args: &[Arg<'_>],
        seed: u64,
        quick: &mut usize,
        agreed: &mut usize,
    ) {
        let mut full = Packed::new();
        let accepted = check_and_pack(def, dtypes, dev, args, &mut full).is_ok();
        *agreed += usize::from(accepted);
        let Some(q) = ParamCodes::new(def, dtypes) else {
            panic!("no quick form for {dtypes:?}");
        };
        let mut out = QuickPacked::new();
        if let Some(pointers) = quick_pack(&q, dev, args, &mut out) {
            *quick += 1;
            assert!(
                accepted,
                "quick accepted what the full check refuses: {args:?} (seed {seed})"
            );
            // SAFETY: each pointer points to a written value of `out`.
            let got: Vec<u64> = pointers
                .iter()
                .map(|&p| unsafe { *p.cast::<u64>() })
                .collect();
            assert_eq!(got, values(&mut full), "{args:?} (seed {seed})");
        }
    }
}
