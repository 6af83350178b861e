//! Kernels written in CUDA C: CuPy's `RawKernel` and `RawModule`, PyCUDA's `SourceModule`.
//!
//! The source is compiled by the same NVRTC path as `#[gpu_kernel]` (disk cache, options,
//! `GPU_RUNTIME_DUMP`) and launched with the same checked configuration, by its own method,
//! inside `unsafe` (C code receives no lengths): `unsafe { k.launch(cfg, args..) }`. rustc
//! cannot read C, so the kernel's parameters are declared as a Rust tuple
//! type, which types every launch at compile time, and that declaration is checked
//! against the C parameter list when the kernel is created:
//!
//! ```no_run
//! use gpu_runtime::prelude::*;
//! use gpu_runtime::raw::{Ptr, PtrMut, RawKernel};
//!
//! const SOURCE: &str = r#"
//! extern "C" __global__ void vec_add(const float* a, const float* b, float* c, int n) {
//!     int i = blockIdx.x * blockDim.x + threadIdx.x;
//!     if (i < n) c[i] = a[i] + b[i];
//! }"#;
//!
//! # fn main() -> Result<(), GpuError> {
//! // SAFETY: `vec_add` takes these four parameters and touches only `a[..n]`, `b[..n]`
//! // and `c[..n]`, which the launch below passes arrays of at least `n` elements for.
//! let vec_add =
//!     unsafe { RawKernel::<(Ptr<f32>, Ptr<f32>, PtrMut<f32>, i32)>::new(SOURCE, "vec_add")? };
//! let dev = Device::cuda(0)?;
//! let a = dev.to_device(&[1.0f32; 1000])?;
//! let mut c = dev.zeros::<f32>(1000)?;
//! // SAFETY: 4 x 256 threads, `n` = 1000: the kernel touches `a[..1000]`, `c[..1000]`.
//! unsafe { vec_add.launch(LaunchConfig::new(4, 256), &a, &a, &mut c, 1000)? };
//! # Ok(()) }
//! ```
//!
//! A raw kernel runs only on a GPU (the simulator runs the Rust body of a `#[gpu_kernel]`,
//! and there is none here): launching one on the simulator is an error that says so.

use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::def::kernel::KernelDef;
use crate::dtype::{Dtype, DtypeKind};
use crate::error::{GpuError, Result};
use crate::host::array::DeviceArray;
use crate::host::device::Device;
use crate::host::device::DeviceInner;
use crate::host::launch_config::LaunchConfig;
use crate::keep_alive::KeepAlive;
use gpu_contract::ParamKind;

mod c_decl;
mod module;

pub use c_decl::{c_parameters, CParam};
use c_decl::{c_spelling, same_c_type};
pub use module::RawModule;

/// A read-only array parameter, `const T*` in C; launched with a `&DeviceArray<T>`.
#[derive(Debug)]
pub struct Ptr<T>(PhantomData<T>);

/// A writable array parameter, `T*` in C; launched with a `&mut DeviceArray<T>`.
#[derive(Debug)]
pub struct PtrMut<T>(PhantomData<T>);

/// One parameter of a raw kernel's declared signature: [`Ptr<T>`], [`PtrMut<T>`], or a
/// scalar dtype (`f32`, `i32`, `u64`, `usize`, ...) passed by value.
pub trait RawParam: sealed::Sealed {
    /// What a launch passes for it.
    type Arg<'a>;
    /// The declaration as written in Rust, for messages.
    fn declared() -> String;
    /// Why the C parameter `c` does not match, if it does not.
    fn mismatch(c: &CParam) -> Option<String>;
    /// What the launch path records about it.
    fn kind() -> ParamKind;
    /// The device of an array argument.
    fn device<'s>(arg: &'s Self::Arg<'_>) -> Option<&'s Device>;
    /// The bytes the kernel receives (a device address, or the scalar), in a `u64`.
    fn value(arg: &Self::Arg<'_>) -> u64;
    /// The owner of an array argument's memory, which a graph that records the launch
    /// keeps.
    #[doc(hidden)]
    fn owner<'s>(arg: &'s Self::Arg<'_>) -> Option<&'s dyn KeepAlive>;
}

mod sealed {
    pub trait Sealed {}
    impl<T: crate::dtype::Dtype> Sealed for super::Ptr<T> {}
    impl<T: crate::dtype::Dtype> Sealed for super::PtrMut<T> {}
    impl<T: crate::dtype::Dtype> Sealed for T {}
}

fn pointer_mismatch(
    c: &CParam,
    kind: DtypeKind,
    writable: bool,
    declared: String,
) -> Option<String> {
    if c.pointer != 1 {
        return Some(format!(
            "is `{}`, not a pointer, but the Rust signature declares `{declared}`",
            c.c_type
        ));
    }
    if !c.dtype.is_some_and(|d| same_c_type(d, kind)) {
        return Some(format!(
            "is `{}`, but the Rust signature declares `{declared}` (`{}*` in C)",
            c.c_type,
            c_spelling(kind)
        ));
    }
    if writable || c.pointee_const {
        return None;
    }
    Some(format!(
        "is `{}`, which lets the kernel write, but the Rust signature declares `{declared}` (read-only); \
         declare it `PtrMut<{}>` or make the C parameter `const {}*`",
        c.c_type,
        kind.rust_name(),
        c_spelling(kind)
    ))
}

/// The array parameters: `Ptr<T>` takes `&DeviceArray<T>`, `PtrMut<T>` a mutable borrow.
macro_rules! pointer_params {
    ($($ptr:ident, $arg:ty, $mutable:literal;)*) => {$(
        impl<T: Dtype> RawParam for $ptr<T> {
            type Arg<'a> = $arg;
            fn declared() -> String {
                format!("{}<{}>", stringify!($ptr), T::KIND.rust_name())
            }
            fn mismatch(c: &CParam) -> Option<String> {
                pointer_mismatch(c, T::KIND, $mutable, Self::declared())
            }
            fn kind() -> ParamKind {
                ParamKind::Pointer { mutable: $mutable }
            }
            fn device<'s>(arg: &'s Self::Arg<'_>) -> Option<&'s Device> {
                Some(arg.device())
            }
            fn value(arg: &Self::Arg<'_>) -> u64 {
                arg.device_ptr().unwrap_or(0)
            }
            fn owner<'s>(arg: &'s Self::Arg<'_>) -> Option<&'s dyn KeepAlive> {
                Some(arg.storage.owner())
            }
        }
    )*};
}

pointer_params! {
    Ptr, &'a DeviceArray<T>, false;
    PtrMut, &'a mut DeviceArray<T>, true;
}

impl<T: Dtype> RawParam for T {
    type Arg<'a> = T;
    fn declared() -> String {
        T::KIND.rust_name().to_owned()
    }
    fn mismatch(c: &CParam) -> Option<String> {
        if c.pointer == 0 && c.dtype.is_some_and(|d| same_c_type(d, T::KIND)) {
            return None;
        }
        Some(format!(
            "is `{}`, but the Rust signature declares `{}` (`{}` in C)",
            c.c_type,
            Self::declared(),
            c_spelling(T::KIND)
        ))
    }
    fn kind() -> ParamKind {
        ParamKind::Scalar {
            ty: gpu_contract::kernel::ElemType::Dtype(T::KIND),
        }
    }
    fn device<'s>(_: &'s Self::Arg<'_>) -> Option<&'s Device> {
        None
    }
    fn owner<'s>(_: &'s Self::Arg<'_>) -> Option<&'s dyn KeepAlive> {
        None
    }
    fn value(arg: &Self::Arg<'_>) -> u64 {
        const { assert!(std::mem::size_of::<T>() <= 8) };
        let mut bits = 0u64;
        // SAFETY: a dtype is plain data of at most 8 bytes; its bytes go to the start of
        // `bits`, which is where the driver reads `sizeof(T)` bytes from.
        unsafe {
            std::ptr::copy_nonoverlapping(
                arg as *const T as *const u8,
                &mut bits as *mut u64 as *mut u8,
                std::mem::size_of::<T>(),
            )
        };
        bits
    }
}

/// One parameter of a declared signature, as [`RawModule::kernel`] checks it.
#[derive(Clone, Debug)]
pub struct DeclaredParam {
    /// The declaration as written in Rust, such as `Ptr<f32>`.
    pub declared: String,
    /// What the launch path records about it.
    pub kind: ParamKind,
    /// Why a C parameter does not match it, if it does not.
    pub mismatch: fn(&CParam) -> Option<String>,
}

/// A declared signature: a tuple of [`RawParam`]s, such as `(Ptr<f32>, PtrMut<f32>, i32)`.
pub trait RawParams {
    /// The launcher's function type: `Fn(LaunchConfig, args...) -> Result<()>`.
    type Launcher: ?Sized + Send + Sync;
    /// Each parameter, in order.
    fn params() -> Vec<DeclaredParam>;
    /// The launcher of `def`.
    fn launcher(def: &'static KernelDef) -> Arc<Self::Launcher>;
}

/// One `extern "C" __global__` kernel of CUDA C, with its parameters declared as `P`.
/// Launched with `unsafe { k.launch(LaunchConfig::new(grid, block), args..) }`: C code
/// gets no array lengths, so no launch of it can be checked.
pub struct RawKernel<P: RawParams> {
    def: &'static KernelDef,
    launcher: Arc<P::Launcher>,
}

impl<P: RawParams> Clone for RawKernel<P> {
    fn clone(&self) -> Self {
        RawKernel {
            def: self.def,
            launcher: self.launcher.clone(),
        }
    }
}

impl<P: RawParams> fmt::Debug for RawKernel<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawKernel({})", self.def.name())
    }
}

impl<P: RawParams> RawKernel<P> {
    /// The kernel `name` of `source` (a one-kernel [`RawModule`]).
    ///
    /// # Safety
    ///
    /// As for [`RawModule::kernel`].
    pub unsafe fn new(source: &str, name: &str) -> Result<RawKernel<P>> {
        // SAFETY: the caller's promise.
        unsafe { RawModule::new(source).kernel(name) }
    }

    fn from_def(def: &'static KernelDef) -> RawKernel<P> {
        RawKernel {
            def,
            launcher: P::launcher(def),
        }
    }

    /// The definition the launch path uses: name, source, parameters, options.
    pub fn definition(&self) -> &'static KernelDef {
        self.def
    }
}

/// Launch `def` on the device of the stream or the arrays (`arrays` holds each argument's
/// device, `None` for a scalar), checked as a `#[gpu_kernel]`'s launch is.
fn launch_on<'a>(
    def: &'static KernelDef,
    cfg: &LaunchConfig<'a>,
    arrays: &[Option<&'a Device>],
    owners: &[Option<&dyn KeepAlive>],
    values: &mut [*mut c_void],
) -> Result<()> {
    let named = arrays
        .iter()
        .zip(def.params())
        .filter_map(|(d, p)| d.map(|d| (d, p.name)));
    let device = crate::host::dispatch::launch_device_of(def, cfg, named)?;
    match &*device.inner {
        DeviceInner::Cuda(c) => {
            // SAFETY: `values` holds one pointer per C parameter, each to a value of the
            // declared type (checked against the C source when the kernel was made); the
            // arrays are borrowed by the caller for the launch, and a capture that records
            // it keeps their memory.
            let mut queue =
                || unsafe { crate::host::dispatch::launch_packed(c, def, &[], cfg, values, None) };
            match crate::host::graph::recording_of(def, cfg)? {
                None => queue(),
                Some(recording) => recording.record_raw(def, owners, queue),
            }
        }
        DeviceInner::Sim(_) => Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: "a raw CUDA C kernel runs only on a GPU: the simulator runs the Rust \
                     body of a #[gpu_kernel], and a raw kernel has none"
                .to_owned(),
        }),
    }
}

macro_rules! raw_arity {
    ($n:literal; $($p:ident $a:ident),*) => {
        impl<$($p: RawParam + 'static),*> RawParams for ($($p,)*) {
            type Launcher = dyn for<'s, 'a> Fn(LaunchConfig<'s>, $($p::Arg<'a>),*) -> Result<()>
                + Send
                + Sync;

            fn params() -> Vec<DeclaredParam> {
                vec![$(DeclaredParam {
                    declared: $p::declared(),
                    kind: $p::kind(),
                    mismatch: $p::mismatch,
                }),*]
            }

            fn launcher(def: &'static KernelDef) -> Arc<Self::Launcher> {
                Arc::new(move |cfg: LaunchConfig<'_>, $($a: $p::Arg<'_>),*| {
                    let arrays = [$($p::device(&$a)),*];
                    let owners = [$($p::owner(&$a)),*];
                    let mut bits = [$($p::value(&$a)),*];
                    let mut values: [*mut c_void; $n] =
                        std::array::from_fn(|k| &mut bits[k] as *mut u64 as *mut c_void);
                    launch_on(def, &cfg, &arrays, &owners, &mut values)
                })
            }
        }

        impl<$($p: RawParam + 'static),*> RawKernel<($($p,)*)> {
            /// Launch with `cfg`: `unsafe { k.launch(LaunchConfig::new(grid, block), args..) }`.
            ///
            /// # Safety
            ///
            /// C code receives no lengths: the kernel must read and write only within the arrays
            /// passed, for this configuration and these scalar arguments. Nothing can check that,
            /// so each launch is `unsafe`. The arguments are type-checked against `P`, and the
            /// configuration and devices checked as a `#[gpu_kernel]`'s are.
            #[allow(clippy::too_many_arguments)]
            pub unsafe fn launch<'a>(&self, cfg: LaunchConfig<'_>, $($a: $p::Arg<'a>),*) -> Result<()> {
                (self.launcher)(cfg, $($a),*)
            }
        }
    };
}

impl RawParams for () {
    type Launcher = dyn for<'s> Fn(LaunchConfig<'s>) -> Result<()> + Send + Sync;

    fn params() -> Vec<DeclaredParam> {
        Vec::new()
    }

    fn launcher(def: &'static KernelDef) -> Arc<Self::Launcher> {
        Arc::new(move |cfg: LaunchConfig<'_>| launch_on(def, &cfg, &[], &[], &mut []))
    }
}

impl RawKernel<()> {
    /// Launch with `cfg`, which must name a stream (there is no array to choose the device).
    ///
    /// # Safety
    ///
    /// C code receives no lengths: the kernel must read and write only within the arrays
    /// passed, for this configuration and these scalar arguments. Nothing can check that,
    /// so each launch is `unsafe`. The arguments are type-checked against `P`, and the
    /// configuration and devices checked as a `#[gpu_kernel]`'s are.
    pub unsafe fn launch(&self, cfg: LaunchConfig<'_>) -> Result<()> {
        (self.launcher)(cfg)
    }
}

raw_arity!(1; A a);
raw_arity!(2; A a, B b);
raw_arity!(3; A a, B b, C c);
raw_arity!(4; A a, B b, C c, D d);
raw_arity!(5; A a, B b, C c, D d, E e);
raw_arity!(6; A a, B b, C c, D d, E e, F f);
raw_arity!(7; A a, B b, C c, D d, E e, F f, G g);
raw_arity!(8; A a, B b, C c, D d, E e, F f, G g, H h);
raw_arity!(9; A a, B b, C c, D d, E e, F f, G g, H h, I i);
raw_arity!(10; A a, B b, C c, D d, E e, F f, G g, H h, I i, J j);
raw_arity!(11; A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k);
raw_arity!(12; A a, B b, C c, D d, E e, F f, G g, H h, I i, J j, K k, L l);

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = r#"
// the seed's kernel
extern "C" __global__ void vec_add(const float* __restrict__ a, const float *b,
                                   float* c, int n) { /* body */ }
__global__ void mangled(float* x) {}
extern "C" {
__global__ void in_block(unsigned long long n, double * __restrict__ out, size_t) {}
}
__global__ void after_block(float* x) {}
extern "C" __global__ void __launch_bounds__(256, 2) add(float x[], const int k = 3) {}
"#;

    /// A kernel of `SEED`. SAFETY of the `unsafe` call: these tests make kernels and
    /// launch only on the simulator, which refuses raw C, so no C ever runs.
    fn make<P: RawParams>(name: &str) -> Result<RawKernel<P>> {
        // SAFETY: see above.
        unsafe { RawKernel::new(SEED, name) }
    }

    #[test]
    fn reads_the_c_parameters() {
        let p = c_parameters(SEED, "vec_add").unwrap();
        let got: Vec<(&str, &str, Option<DtypeKind>, bool)> = p
            .iter()
            .map(|c| (c.name.as_str(), c.c_type.as_str(), c.dtype, c.pointee_const))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "const float*", Some(DtypeKind::F32), true),
                ("b", "const float*", Some(DtypeKind::F32), true),
                ("c", "float*", Some(DtypeKind::F32), false),
                ("n", "int", Some(DtypeKind::I32), false),
            ]
        );
        let p = c_parameters(SEED, "in_block").unwrap();
        assert_eq!(p[0].dtype, Some(DtypeKind::U64));
        assert_eq!((p[1].name.as_str(), p[1].pointer), ("out", 1));
        assert_eq!((p[2].name.as_str(), p[2].dtype), ("", Some(DtypeKind::U64)));
        // `add` is found as a whole word past its attribute, not inside `vec_add`; an
        // array parameter is a pointer; a default argument is not part of the type.
        let p = c_parameters(SEED, "add").unwrap();
        assert_eq!((p[0].c_type.as_str(), p[0].pointer), ("float*", 1));
        assert_eq!(
            (p[1].name.as_str(), p[1].c_type.as_str()),
            ("k", "const int")
        );
        // The 8- and 16-bit integers, by each spelling.
        let narrow = "extern \"C\" __global__ void bytes(unsigned char* a, const int8_t* b, \
                      short c, uint16_t d, char e) {}";
        let p = c_parameters(narrow, "bytes").unwrap();
        let got: Vec<Option<DtypeKind>> = p.iter().map(|c| c.dtype).collect();
        assert_eq!(
            got,
            [
                Some(DtypeKind::U8),
                Some(DtypeKind::I8),
                Some(DtypeKind::I16),
                Some(DtypeKind::U16),
                Some(DtypeKind::I8)
            ]
        );
        let e = c_parameters(SEED, "after_block").unwrap_err();
        assert!(e.contains("extern \"C\""), "{e}");
        let e = c_parameters(SEED, "mangled").unwrap_err();
        assert!(e.contains("extern \"C\""), "{e}");
        let e = c_parameters(SEED, "missing").unwrap_err();
        assert!(
            e.contains("no `__global__` function named `missing`"),
            "{e}"
        );
    }

    #[test]
    fn a_declaration_that_does_not_match_the_c_is_refused() {
        let ok = make::<(Ptr<f32>, Ptr<f32>, PtrMut<f32>, i32)>("vec_add");
        assert!(ok.is_ok());
        let cases: [(Result<(), GpuError>, &str); 4] = [
            (
                make::<(Ptr<f32>, Ptr<f32>, PtrMut<f32>)>("vec_add").map(drop),
                "has 4 parameter(s), the Rust signature declares 3",
            ),
            (
                make::<(Ptr<f64>, Ptr<f32>, PtrMut<f32>, i32)>("vec_add").map(drop),
                "parameter 1 `a` is `const float*`, but the Rust signature declares `Ptr<f64>`",
            ),
            (
                make::<(Ptr<f32>, Ptr<f32>, Ptr<f32>, i32)>("vec_add").map(drop),
                "parameter 3 `c` is `float*`, which lets the kernel write",
            ),
            (
                make::<(Ptr<f32>, Ptr<f32>, PtrMut<f32>, u64)>("vec_add").map(drop),
                "parameter 4 `n` is `int`, but the Rust signature declares `u64`",
            ),
        ];
        for (r, want) in cases {
            match r {
                Err(GpuError::InvalidArgument(msg)) => assert!(msg.contains(want), "{msg}"),
                other => panic!("expected an error containing {want:?}, got {other:?}"),
            }
        }
        assert!(make::<(u64, PtrMut<f64>, usize)>("in_block").is_ok());
    }

    #[test]
    fn a_raw_kernel_on_the_simulator_says_why_it_cannot_run() {
        let k = make::<(Ptr<f32>, Ptr<f32>, PtrMut<f32>, i32)>("vec_add").unwrap();
        let dev = Device::simulator();
        let a = dev.to_device(&[1.0f32; 4]).unwrap();
        let mut c = dev.zeros::<f32>(4).unwrap();
        // SAFETY: refused before anything runs (the simulator runs no C).
        match unsafe { k.launch(LaunchConfig::new(1u32, 4u32), &a, &a, &mut c, 4) } {
            Err(GpuError::InvalidLaunch { reason, .. }) => {
                assert!(reason.contains("runs only on a GPU"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
}
