//! What the attribute leaves in the binary for each kernel, and how a dtype signature of
//! it becomes CUDA C and then machine code.

use std::sync::atomic::AtomicU32;

use crate::compile::{compile_cached, compile_ptx, compile_uncached};
use crate::cuda_prelude::prelude_for;
use crate::dtype::{Bound, DtypeKind};
use crate::error::GpuError;

/// A kernel as the attribute describes it: its name, CUDA C source and parameters.
///
/// Made by `#[gpu_kernel]`; reach it through the kernel's `definition()` method.
#[derive(Debug, Clone)]
pub struct KernelDef {
    /// The Rust name of the kernel.
    pub name: &'static str,
    /// The name of the `__global__` function in the CUDA source.
    pub c_name: &'static str,
    /// The translated CUDA C, with the generic dtype parameters left as type names that
    /// [`KernelDef::specialize`] defines.
    pub source: &'static str,
    /// The same kernel with every array index checked, compiled instead of `source` when
    /// [`bounds_checked`](KernelDef::bounds_checked) is true.
    pub checked_source: &'static str,
    /// The name of each check in `checked_source`, by id: a parameter (`a`), an axis of
    /// one (`m (row)`, `m (column)`, `v (axis 2)`), `a shared array` or `a local array`.
    pub check_names: &'static [&'static str],
    /// The generic dtype parameters, in declaration order.
    pub generics: &'static [GenericParam],
    /// The parameters, in declaration order.
    pub params: &'static [ParamDef],
    /// The compile options given in the attribute.
    pub options: KernelOptions,
    /// The signatures listed in the attribute's `signatures(...)`, for `precompile`.
    pub signatures: &'static [&'static [DtypeKind]],
    /// The `#[gpu_device]` functions the kernel calls directly.
    pub device_fns: &'static [&'static DeviceFnDef],
    /// Whether the kernel calls `sync_grid()`: launched cooperatively, every block resident
    /// at once.
    pub cooperative: bool,
    #[doc(hidden)]
    pub signature_slots: &'static [AtomicU32],
}

/// A `#[gpu_device]` function: its C++ and the device functions it calls. Made by the
/// attribute; a kernel's source pulls in exactly the device functions it reaches.
#[derive(Debug)]
pub struct DeviceFnDef {
    /// The Rust name.
    pub name: &'static str,
    /// The C++ name.
    pub c_name: &'static str,
    /// The C++ definition (a template when the function is generic).
    pub source: &'static str,
    /// The device functions it calls directly.
    pub deps: &'static [&'static DeviceFnDef],
}

/// Compile options of a kernel, from `#[gpu_kernel(...)]`. All are part of the cache key.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelOptions {
    /// `fast_math`: NVRTC `--use_fast_math` (approximate division, square root and
    /// transcendentals; denormals flushed to zero).
    pub fast_math: bool,
    /// `max_registers = N`: NVRTC `--maxrregcount=N`.
    pub max_registers: Option<u32>,
    /// `launch_bounds(threads, min_blocks)`: written into the source as
    /// `__launch_bounds__`; `min_blocks` 0 means unset.
    pub launch_bounds: Option<(u32, u32)>,
    /// `line_info`: NVRTC `--generate-line-info`, so profilers map instructions to lines.
    pub line_info: bool,
    /// `debug`: NVRTC `--device-debug` (slow code, for cuda-gdb).
    pub debug: bool,
    /// `bounds_check`: compile the bounds-checked source, so an index out of range is
    /// returned as [`GpuError::OutOfBounds`] by the launch (which then waits for the
    /// kernel to finish). [`BOUNDS_CHECK_ENV`] turns this on for every kernel.
    pub bounds_check: bool,
}

/// Environment variable that turns on bounds checking for every kernel of the process:
/// `GPU_RUNTIME_BOUNDS_CHECK=1` (`0`, `false`, `off` or unset leave it off). Read once.
pub const BOUNDS_CHECK_ENV: &str = "GPU_RUNTIME_BOUNDS_CHECK";

/// Whether [`BOUNDS_CHECK_ENV`] asks for checks everywhere.
fn bounds_check_everywhere() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| match std::env::var(BOUNDS_CHECK_ENV) {
        Ok(v) => !matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "off" | "no"
        ),
        Err(_) => false,
    })
}

impl KernelOptions {
    /// The NVRTC command-line options these stand for.
    pub fn nvrtc_flags(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.fast_math {
            out.push("--use_fast_math".to_owned());
        }
        if let Some(n) = self.max_registers {
            out.push(format!("--maxrregcount={n}"));
        }
        if self.line_info {
            out.push("--generate-line-info".to_owned());
        }
        if self.debug {
            out.push("--device-debug".to_owned());
        }
        out
    }
}

/// A generic dtype parameter of a kernel, such as `T: Float`.
#[derive(Debug)]
pub struct GenericParam {
    /// The Rust name.
    pub name: &'static str,
    /// The type name the CUDA source uses for it.
    pub c_name: &'static str,
    /// Its bound.
    pub bound: Bound,
}

/// A kernel parameter.
#[derive(Debug)]
pub struct ParamDef {
    /// The Rust name.
    pub name: &'static str,
    /// What it is.
    pub kind: ParamKind,
}

/// The kinds of kernel parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `&[T]` (`mutable: false`) or `&mut [T]`: a pointer and a length in CUDA C.
    Slice {
        /// Whether the kernel may write it.
        mutable: bool,
    },
    /// A value.
    Scalar,
}

impl KernelDef {
    /// Whether launches of this kernel check every array index: the attribute's
    /// `bounds_check`, or [`BOUNDS_CHECK_ENV`] set for the process.
    pub fn bounds_checked(&self) -> bool {
        self.options.bounds_check || bounds_check_everywhere()
    }

    /// The name of bounds check `id` of the checked source.
    pub(crate) fn check_name(&self, id: u64) -> &'static str {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.check_names.get(i))
            .copied()
            .unwrap_or("an array")
    }

    /// The signature's display form, such as `vec_add::<f32>`.
    pub fn signature(&self, dtypes: &[DtypeKind]) -> String {
        if dtypes.is_empty() {
            return self.name.to_owned();
        }
        let names: Vec<&str> = dtypes.iter().map(|d| d.rust_name()).collect();
        format!("{}::<{}>", self.name, names.join(", "))
    }

    /// The complete CUDA C that is compiled for `dtypes`: the runtime's prelude, one
    /// `typedef` per generic parameter, and the kernel.
    pub fn specialize(&self, dtypes: &[DtypeKind]) -> Result<String, GpuError> {
        if dtypes.len() != self.generics.len() {
            return Err(GpuError::InvalidArgument(format!(
                "kernel `{}` has {} dtype parameter(s), but {} dtype(s) were given",
                self.name,
                self.generics.len(),
                dtypes.len()
            )));
        }
        let mut typedefs = String::new();
        for (g, d) in self.generics.iter().zip(dtypes) {
            if !d.satisfies(g.bound) {
                return Err(GpuError::InvalidArgument(format!(
                    "kernel `{}`: {} does not satisfy the bound {}: {:?}",
                    self.name, d, g.name, g.bound
                )));
            }
            typedefs.push_str(&format!("typedef {} {};\n", d.c_name(), g.c_name));
        }
        let device_fns = self.reachable_device_fns()?;
        let source = if self.bounds_checked() {
            self.checked_source
        } else {
            self.source
        };
        let mut code: Vec<&str> = device_fns.iter().map(|f| f.source).collect();
        code.push(source);
        code.push(&typedefs);
        let mut out = prelude_for(&code);
        out.push_str(&typedefs);
        for f in device_fns {
            out.push_str(f.source);
        }
        out.push_str(source);
        Ok(out)
    }

    /// Every device function the kernel reaches, each after the ones it calls.
    fn reachable_device_fns(&self) -> Result<Vec<&'static DeviceFnDef>, GpuError> {
        fn visit(
            f: &'static DeviceFnDef,
            path: &mut Vec<&'static DeviceFnDef>,
            out: &mut Vec<&'static DeviceFnDef>,
        ) -> Result<(), String> {
            if out.iter().any(|g| std::ptr::eq(*g, f)) {
                return Ok(());
            }
            if path.iter().any(|g| std::ptr::eq(*g, f)) {
                let names: Vec<&str> = path.iter().map(|g| g.name).chain([f.name]).collect();
                return Err(format!(
                    "device functions call each other in a cycle ({}); recursion is not supported",
                    names.join(" -> ")
                ));
            }
            if let Some(other) = out.iter().find(|g| g.c_name == f.c_name) {
                return Err(format!(
                    "two different device functions named `{}` are reached ({} bytes and {} bytes \
                     of source); rename one",
                    f.name,
                    other.source.len(),
                    f.source.len()
                ));
            }
            path.push(f);
            for d in f.deps {
                visit(d, path, out)?;
            }
            path.pop();
            out.push(f);
            Ok(())
        }
        let mut out = Vec::new();
        for f in self.device_fns {
            visit(f, &mut Vec::new(), &mut out).map_err(|reason| GpuError::InvalidLaunch {
                kernel: self.name,
                reason,
            })?;
        }
        Ok(out)
    }

    /// Every dtype signature the bounds allow, such as `[[F32], [F64]]` for `T: Float`.
    pub fn all_signatures(&self) -> Vec<Vec<DtypeKind>> {
        let mut out: Vec<Vec<DtypeKind>> = vec![Vec::new()];
        for g in self.generics {
            let choices: Vec<DtypeKind> = DtypeKind::ALL
                .into_iter()
                .filter(|d| d.satisfies(g.bound))
                .collect();
            out = out
                .into_iter()
                .flat_map(|prefix| {
                    choices.iter().map(move |d| {
                        let mut v = prefix.clone();
                        v.push(*d);
                        v
                    })
                })
                .collect();
        }
        out
    }

    /// Compile the `dtypes` specialisation for `arch` (such as `sm_90`) to a CUBIN with
    /// NVRTC, through the disk cache. Needs no GPU, so a CPU-only machine can check
    /// kernels or fill a cache to ship.
    pub fn compile_for_arch(&self, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>, GpuError> {
        compile_cached(self, dtypes, arch)
    }

    /// The same, always running NVRTC: the disk cache is neither read nor written. For
    /// checks that must prove the compiler accepts the source, and for benchmarks.
    pub fn compile_uncached(&self, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>, GpuError> {
        compile_uncached(self, dtypes, arch)
    }

    /// The PTX of the `dtypes` specialisation for the virtual architecture of `arch`
    /// (`sm_90` gives `compute_90` PTX).
    pub fn ptx(&self, dtypes: &[DtypeKind], arch: &str) -> Result<String, GpuError> {
        compile_ptx(self, dtypes, arch)
    }

    /// The signatures `precompile` compiles: those listed in the attribute, or every one
    /// the bounds allow.
    pub fn precompile_signatures(&self) -> Vec<Vec<DtypeKind>> {
        if self.signatures.is_empty() {
            self.all_signatures()
        } else {
            self.signatures.iter().map(|s| s.to_vec()).collect()
        }
    }

    /// Compile every [`precompile_signatures`](Self::precompile_signatures) entry for
    /// `arch` into the disk cache, with no GPU needed.
    pub fn precompile_for_arch(&self, arch: &str) -> Result<(), GpuError> {
        for sig in self.precompile_signatures() {
            self.compile_for_arch(&sig, arch)?;
        }
        Ok(())
    }

    /// The slot of a signature in `signature_slots`.
    pub(crate) fn slot_of(dtypes: &[DtypeKind]) -> usize {
        dtypes
            .iter()
            .rev()
            .fold(0, |acc, d| acc * crate::dtype::DTYPE_SLOTS + d.index())
    }
}
