//! What the attribute leaves in the binary for each kernel, and how a dtype signature of
//! it becomes CUDA C.
//!
//! Contract: a [`KernelDef`] can only be made by `#[gpu_kernel]` (its constructor is an
//! `unsafe fn` of the hidden support module), because launching one passes its C
//! parameters raw values: the source, its parameter list and the launcher must come from
//! one signature, as the attribute makes them.

use std::sync::atomic::AtomicU32;

use gpu_contract::fault::{function_hash, Site};

use super::module_const::ConstValue;
use super::{compile_cached, compile_ptx, compile_uncached, precompile_cached};
use crate::compile::prelude::prelude_for;
use crate::dtype::DtypeKind;
use crate::error::GpuError;
use crate::{GenericParam, KernelOptions, ParamDef};

/// A kernel as the attribute describes it: its name, CUDA C source and parameters.
///
/// Made by `#[gpu_kernel]`; reach it with `kernel::definition()` (the kernel's module) or
/// through a [`KernelHandle`](crate::KernelHandle).
#[derive(Debug)]
pub struct KernelDef {
    parts: KernelParts,
}

/// The parts of a [`KernelDef`], as the attribute emits them. Not a public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct KernelParts {
    pub name: &'static str,
    pub c_name: &'static str,
    pub source: &'static str,
    /// Where the checked entry begins in `source` (its length when there is none).
    pub checked_at: usize,
    pub check_names: &'static [&'static str],
    pub generics: &'static [GenericParam],
    pub params: &'static [ParamDef],
    pub options: KernelOptions,
    pub signatures: &'static [&'static [DtypeKind]],
    pub device_fns: &'static [&'static DeviceFnDef],
    pub waits: bool,
    pub cooperative: bool,
    /// The fast path's conditions: when there are any, the source has a second, fully
    /// checked entry ([`gpu_contract::kernel::checked_entry`]) for launches that fail them.
    pub fast_path: &'static [gpu_contract::fast_path::FastCondition],
    /// The same conditions compiled (`None`: the runtime interprets `fast_path`).
    pub fast_path_fn: Option<gpu_contract::fast_path::CompiledConditions>,
    /// The array parameters the kernel reads or writes with `load4`/`store4`, which need
    /// 16-byte alignment.
    pub vector_params: &'static [&'static str],
    pub signature_slots: &'static [AtomicU32],
    /// The module constants the body names, with their values.
    pub constants: &'static [ConstValue],
    /// The `#[gpu_struct]`s its signature and body name.
    pub structs: &'static [&'static gpu_contract::StructLayout],
}

/// Which of a kernel's entries a compilation holds. A kernel with a fast path has two: the
/// main entry, which a first launch compiles and loads alone, and the fully checked one,
/// compiled when a launch first fails the fast path's conditions. Each is its own module
/// and cache entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Both entries: what [`KernelDef::specialize`] shows and the inspection APIs compile.
    Whole,
    /// The main entry (the only one without a fast path).
    Main,
    /// The checked entry.
    Checked,
}

/// A `#[gpu_device]` function: its C++, its checks and the device functions it calls.
/// Made by the attribute; a kernel's source pulls in exactly the device functions it
/// reaches.
#[derive(Debug)]
pub struct DeviceFnDef {
    name: &'static str,
    c_name: &'static str,
    source: &'static str,
    check_names: &'static [&'static str],
    deps: &'static [&'static DeviceFnDef],
    waits: bool,
    /// Whether its integer operations check overflow (`debug_assertions` of its crate).
    overflow_checks: bool,
    /// The module constants its body names, with their values.
    constants: &'static [ConstValue],
    /// The `#[gpu_struct]`s its signature and body name.
    structs: &'static [&'static gpu_contract::StructLayout],
}

impl DeviceFnDef {
    /// Not a public API: the definition, naming the structs it uses.
    #[doc(hidden)]
    pub const fn with_structs(
        self,
        structs: &'static [&'static gpu_contract::StructLayout],
    ) -> DeviceFnDef {
        DeviceFnDef { structs, ..self }
    }

    /// Not a public API: what `#[gpu_device]` emits.
    ///
    /// # Safety
    ///
    /// `source` must be the C++ of a device function named `c_name` whose array parameters
    /// are each a pointer, their extents and a check site, as the attribute translates
    /// them, `deps` the device functions it calls and `constants` the module constants it
    /// names.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    pub const unsafe fn from_parts(
        name: &'static str,
        c_name: &'static str,
        source: &'static str,
        check_names: &'static [&'static str],
        deps: &'static [&'static DeviceFnDef],
        waits: bool,
        overflow_checks: bool,
        constants: &'static [ConstValue],
    ) -> DeviceFnDef {
        DeviceFnDef {
            name,
            c_name,
            source,
            check_names,
            deps,
            waits,
            overflow_checks,
            constants,
            structs: &[],
        }
    }

    /// The Rust name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Whether `self` is reached again from the functions it calls: recursion, which the
    /// GPU cannot run. Evaluated at compile time by each `#[gpu_device]` (so a cycle is a
    /// compile error); a graph too large to walk here (over 256 calls) is left to the
    /// launch, which checks again.
    #[doc(hidden)]
    pub const fn __in_a_cycle(&'static self) -> bool {
        const CAP: usize = 256;
        let mut queue: [Option<&'static DeviceFnDef>; CAP] = [None; CAP];
        let (mut head, mut tail) = (0, 0);
        let mut i = 0;
        while i < self.deps.len() {
            if tail == CAP {
                return false;
            }
            queue[tail] = Some(self.deps[i]);
            tail += 1;
            i += 1;
        }
        while head < tail {
            let Some(f) = queue[head] else { return false };
            head += 1;
            if same_function(f, self) {
                return true;
            }
            let mut k = 0;
            while k < f.deps.len() {
                if tail == CAP {
                    return false;
                }
                queue[tail] = Some(f.deps[k]);
                tail += 1;
                k += 1;
            }
        }
        false
    }

    /// The C++ definition (a template when the function is generic).
    pub fn source(&self) -> &'static str {
        self.source
    }
}

/// Whether two device functions are the same one: same C name and same source (const
/// evaluation cannot compare addresses).
const fn same_function(a: &DeviceFnDef, b: &DeviceFnDef) -> bool {
    same_bytes(a.c_name.as_bytes(), b.c_name.as_bytes())
        && same_bytes(a.source.as_bytes(), b.source.as_bytes())
}

const fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl KernelDef {
    /// Not a public API: what `#[gpu_kernel]` emits.
    ///
    /// # Safety
    ///
    /// `parts.source` must define `extern "C" __global__ void <c_name>(...)` whose C
    /// parameters are exactly those `parts.params` expand to (see
    /// [`gpu_contract::kernel`]), in order and of their types, and with `parts.fast_path`
    /// a second such function, the checked entry, every index check in it, beginning at
    /// byte `parts.checked_at` (each part compiles without the other);
    /// `signature_slots` must have one slot per signature the generics allow and belong
    /// to this kernel alone; `parts.constants` must hold, in the order the fast path
    /// numbers them, the module constants the source names (the fast path reads the same
    /// values the C is specialised with); `parts.fast_path_fn`, when given, must compute
    /// exactly what `gpu_contract::fast_path::holds` computes from `parts.fast_path`.
    #[doc(hidden)]
    pub const unsafe fn __from_parts(parts: KernelParts) -> KernelDef {
        KernelDef { parts }
    }

    /// The Rust name of the kernel.
    pub fn name(&self) -> &'static str {
        self.parts.name
    }

    /// The name of the `__global__` function in the CUDA source.
    pub fn c_name(&self) -> &'static str {
        self.parts.c_name
    }

    /// Whether the source has a fully checked second entry, for launches whose values do
    /// not prove the main entry's left-out checks redundant.
    pub fn has_fast_path(&self) -> bool {
        !self.parts.fast_path.is_empty()
    }

    /// The array parameters used with `load4`/`store4` (16-byte alignment required).
    pub fn vector_params(&self) -> &'static [&'static str] {
        self.parts.vector_params
    }

    /// The conditions under which the main entry's left-out checks are redundant.
    pub fn fast_path(&self) -> &'static [gpu_contract::fast_path::FastCondition] {
        self.parts.fast_path
    }

    /// Whether the fast path's conditions hold for a launch's values: the compiled form
    /// when the definition has one, else the data interpreted.
    #[inline]
    pub(crate) fn fast_path_holds(&self, v: &dyn gpu_contract::fast_path::LaunchValues) -> bool {
        match self.parts.fast_path_fn {
            Some(f) => f(v),
            None => gpu_contract::fast_path::holds(self.parts.fast_path, v),
        }
    }

    /// The compiled form of the fast path's conditions, if the definition has one.
    #[doc(hidden)]
    pub fn __fast_path_fn(&self) -> Option<gpu_contract::fast_path::CompiledConditions> {
        self.parts.fast_path_fn
    }

    /// The module constants the body names, with the values rustc gave them.
    pub fn constants(&self) -> &'static [ConstValue] {
        self.parts.constants
    }

    /// The translated CUDA C, with the generic dtype parameters left as type names that
    /// [`KernelDef::specialize`] defines.
    pub fn source(&self) -> &'static str {
        self.parts.source
    }

    /// The part of [`source`](Self::source) that `unit` compiles.
    pub(crate) fn unit_source(&self, unit: Unit) -> &'static str {
        let s = self.parts.source;
        // A boundary the attribute did not make (not a `char` boundary, past the end)
        // compiles the whole source for the main unit, and nothing more.
        let at = if s.is_char_boundary(self.parts.checked_at) {
            self.parts.checked_at
        } else {
            s.len()
        };
        match unit {
            Unit::Whole => s,
            Unit::Main => &s[..at],
            Unit::Checked => &s[at..],
        }
    }

    /// The generic dtype parameters, in declaration order.
    pub fn generics(&self) -> &'static [GenericParam] {
        self.parts.generics
    }

    /// The parameters, in declaration order.
    pub fn params(&self) -> &'static [ParamDef] {
        self.parts.params
    }

    /// The compile options given in the attribute.
    pub fn options(&self) -> &KernelOptions {
        &self.parts.options
    }

    /// The signatures listed in the attribute's `signatures(...)`, for `precompile`.
    pub fn listed_signatures(&self) -> &'static [&'static [DtypeKind]] {
        self.parts.signatures
    }

    /// Whether the kernel calls `sync_grid()`: launched cooperatively, every block
    /// resident at once.
    pub fn cooperative(&self) -> bool {
        self.parts.cooperative
    }

    pub(crate) fn signature_slots(&self) -> &'static [AtomicU32] {
        self.parts.signature_slots
    }

    /// Whether the threads of a block wait for each other somewhere in the kernel or in a
    /// device function it reaches (the simulator then runs them as fibers).
    pub(crate) fn waits(&self) -> bool {
        self.parts.waits
            || self
                .reachable_device_fns()
                .map(|fns| fns.iter().any(|f| f.waits))
                .unwrap_or(false)
    }

    /// What the check at `site` names: a parameter (`a`), an axis of one (`m (row)`), or
    /// an array declared in the kernel or in a device function it reaches.
    pub(crate) fn site_name(&self, site: u32) -> &'static str {
        let found = match Site::from_code(site) {
            Site::Kernel(id) => self.parts.check_names.get(id as usize).copied(),
            Site::Device { function, id } => self
                .reachable_device_fns()
                .ok()
                .and_then(|fns| {
                    fns.into_iter()
                        .find(|f| function_hash(f.c_name) == function)
                })
                .and_then(|f| f.check_names.get(id as usize).copied()),
        };
        found.unwrap_or("an array")
    }

    /// The signature's display form, such as `vec_add::<f32>`.
    pub fn signature(&self, dtypes: &[DtypeKind]) -> String {
        if dtypes.is_empty() {
            return self.name().to_owned();
        }
        let names: Vec<&str> = dtypes.iter().map(|d| d.rust_name()).collect();
        format!("{}::<{}>", self.name(), names.join(", "))
    }

    /// Check that `dtypes` is a signature of this kernel: one dtype per dtype parameter,
    /// each within its bound.
    pub(crate) fn check_dtypes(&self, dtypes: &[DtypeKind]) -> Result<(), GpuError> {
        let generics = self.generics();
        if dtypes.len() != generics.len() {
            return Err(GpuError::InvalidArgument(format!(
                "kernel `{}` has {} dtype parameter(s), but {} dtype(s) were given",
                self.name(),
                generics.len(),
                dtypes.len()
            )));
        }
        for (g, d) in generics.iter().zip(dtypes) {
            if !d.satisfies(g.bound) {
                return Err(GpuError::InvalidArgument(format!(
                    "kernel `{}`: {} does not satisfy the bound {}: {}",
                    self.name(),
                    d,
                    g.name,
                    g.bound.name()
                )));
            }
        }
        Ok(())
    }

    /// The complete CUDA C that is compiled for `dtypes`: the runtime's prelude, the
    /// switches the options set, one `typedef` per generic parameter, the device functions
    /// the kernel reaches, and the kernel.
    pub fn specialize(&self, dtypes: &[DtypeKind]) -> Result<String, GpuError> {
        self.specialize_unit(dtypes, Unit::Whole)
    }

    /// As [`specialize`](Self::specialize), with the kernel's part that `unit` names.
    pub(crate) fn specialize_unit(
        &self,
        dtypes: &[DtypeKind],
        unit: Unit,
    ) -> Result<String, GpuError> {
        self.check_dtypes(dtypes)?;
        let mut typedefs = String::new();
        for (g, d) in self.generics().iter().zip(dtypes) {
            typedefs.push_str(&format!("typedef {} {};\n", d.c_name(), g.c_name));
        }
        let device_fns = self.reachable_device_fns()?;
        let structs = self.struct_declarations(&device_fns)?;
        let mut code: Vec<&str> = device_fns.iter().map(|f| f.source).collect();
        code.push(&structs);
        code.push(self.unit_source(unit));
        code.push(&typedefs);
        let mut out = self.options().source_defines();
        // Each device function checks overflow as its own crate's build does.
        for f in &device_fns {
            let name = gpu_contract::kernel::device_overflow_checks(f.c_name);
            out.push_str(&format!("#define {name} {}\n", u8::from(f.overflow_checks)));
        }
        out.push_str(&prelude_for(&code));
        out.push_str(&typedefs);
        out.push_str(&structs);
        // Module constants, each under its function's own prefix.
        for c in device_fns
            .iter()
            .flat_map(|f| f.constants)
            .chain(self.constants())
        {
            out.push_str(&c.c_definition());
        }
        for f in device_fns {
            out.push_str(f.source);
        }
        out.push_str(self.unit_source(unit));
        Ok(out)
    }

    /// The C declarations of the structs the kernel and `device_fns` use, each after the
    /// structs its fields use, with their layout assertions.
    fn struct_declarations(&self, device_fns: &[&'static DeviceFnDef]) -> Result<String, GpuError> {
        let mut order = Vec::new();
        for s in device_fns
            .iter()
            .flat_map(|f| f.structs)
            .chain(self.parts.structs)
        {
            s.with_dependencies(&mut order);
        }
        for (i, s) in order.iter().enumerate() {
            if let Some(other) = order[..i].iter().find(|o| o.c_name == s.c_name) {
                return Err(GpuError::InvalidLaunch {
                    kernel: self.name(),
                    reason: format!(
                        "two different structs named `{}` are used ({} and {}); rename one",
                        s.rust_name,
                        other.path(),
                        s.path()
                    ),
                });
            }
        }
        Ok(order.iter().map(|s| s.c_declaration()).collect())
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
                    "device functions call each other in a cycle ({}); recursion is not \
                     supported on the GPU",
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
        for f in self.parts.device_fns {
            visit(f, &mut Vec::new(), &mut out).map_err(|reason| GpuError::InvalidLaunch {
                kernel: self.name(),
                reason,
            })?;
        }
        Ok(out)
    }

    /// Every dtype signature the bounds allow, such as `[[F32], [F64], ...]` for `T: Float`.
    pub fn all_signatures(&self) -> Vec<Vec<DtypeKind>> {
        let mut out: Vec<Vec<DtypeKind>> = vec![Vec::new()];
        for g in self.generics() {
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
    /// NVRTC, through the disk cache: the module a first launch loads, with the kernel's
    /// main entry (a kernel with a fast path compiles its checked entry into a module of
    /// its own when a launch first needs it; [`precompile_for_arch`](Self::precompile_for_arch)
    /// compiles both). Needs no GPU, so a CPU-only machine can check kernels. Where NVRTC
    /// is absent and the cache has no CUBIN for `arch`, the result is the NUL-terminated
    /// PTX kept for the same or an older architecture (which the driver's JIT loads), if
    /// there is one.
    pub fn compile_for_arch(&self, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>, GpuError> {
        compile_cached(self, dtypes, arch, Unit::Main)
    }

    /// The module of the `dtypes` specialisation's checked entry for `arch`, through the
    /// disk cache (for a kernel with a fast path, when a launch fails its conditions).
    pub(crate) fn compile_checked_for_arch(
        &self,
        dtypes: &[DtypeKind],
        arch: &str,
    ) -> Result<Vec<u8>, GpuError> {
        compile_cached(self, dtypes, arch, Unit::Checked)
    }

    /// The whole specialisation (both entries of a kernel with a fast path), always
    /// running NVRTC: the disk cache is neither read nor written. For checks that must
    /// prove the compiler accepts the source, and for benchmarks.
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
        if self.listed_signatures().is_empty() {
            self.all_signatures()
        } else {
            self.listed_signatures()
                .iter()
                .map(|s| s.to_vec())
                .collect()
        }
    }

    /// Compile every [`precompile_signatures`](Self::precompile_signatures) entry for
    /// `arch` into the disk cache, with no GPU needed: a CUBIN and the PTX kept beside it
    /// (written where it is missing, also when the CUBIN was there), for a cache to ship.
    /// Needs NVRTC, and says so where it is absent.
    pub fn precompile_for_arch(&self, arch: &str) -> Result<(), GpuError> {
        for sig in self.precompile_signatures() {
            precompile_cached(self, &sig, arch)?;
        }
        Ok(())
    }
}

/// A value that names a kernel: each kernel's module has one, `kernel::Kernel`, for code
/// that stores kernels or is generic over them.
pub trait KernelHandle: Copy + Send + Sync + 'static {
    /// The kernel's definition.
    fn definition(&self) -> &'static KernelDef;
}
