//! What the attribute leaves in the binary for each kernel: its definition, as data. How a
//! dtype signature of it becomes CUDA C and machine code is `compile/`'s.
//!
//! Contract: a [`KernelDef`] can only be made by `#[gpu_kernel]` (its constructor is an
//! `unsafe fn` of the hidden support module), because launching one passes its C
//! parameters raw values: the source, its parameter list and the launcher must come from
//! one signature, as the attribute makes them.

use std::sync::atomic::AtomicU32;

use gpu_contract::fault::{function_hash, Site};

use gpu_contract::{GenericParam, KernelOptions, ParamDef};

use super::device_fn::DeviceFnDef;
use super::headers::Headers;
use super::module_array::GlobalSymbol;
use super::module_const::ConstValue;
use crate::dtype::DtypeKind;
use crate::error::GpuError;

/// A kernel as the attribute describes it: its name, CUDA C source and parameters.
///
/// Made by `#[gpu_kernel]`; reach it with `kernel::definition()` (the kernel's module): a
/// `&'static KernelDef` is the handle that names a kernel in code that stores kernels or is
/// generic over them.
#[derive(Debug)]
pub struct KernelDef {
    parts: KernelParts,
    /// The headers a raw module's source includes.
    headers: Option<&'static Headers>,
}

/// The parts of a [`KernelDef`], as the attribute emits them. Not a public API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
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
    /// Whether the body has a tensor-core accumulator (`mma_acc`), spread over exactly the
    /// `launch_bounds` threads of a block: a launch with another block size is refused.
    pub tensor_cores: bool,
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
    /// Its const parameters (`const BM: usize`).
    pub const_params: &'static [ConstParam],
    /// An instance's values of `const_params`, each as [`ConstValue`] bits; empty on a
    /// kernel without const parameters and on such a kernel's generic definition.
    pub const_args: &'static [u64],
    /// The instances of a kernel with const parameters, on its generic definition.
    pub instances: Option<&'static super::instances::Instances>,
    /// The most local memory a thread uses, in bytes: its locals' and those of its
    /// deepest chain of device functions (`def/stack.rs`); an instance's on a kernel with
    /// const parameters (0 on their generic definition).
    pub local_bytes: u64,
    /// The user-trait methods it calls on its dtype parameters, found at run time
    /// (`def/trait_impls.rs`).
    pub trait_impls: &'static [super::trait_impls::TraitImpls],
}

/// A kernel's const parameter, such as `const BM: usize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstParam {
    /// The Rust name.
    pub name: &'static str,
    /// Its type: an integer type or `bool`.
    pub kind: DtypeKind,
    /// Its place among all the kernel's generic parameters (dtype ones included).
    pub position: u8,
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
        KernelDef {
            parts,
            headers: None,
        }
    }

    /// The definition of a raw module's kernel whose source includes `headers`.
    pub(crate) fn with_headers(self, headers: &'static Headers) -> KernelDef {
        KernelDef {
            headers: (!headers.is_empty()).then_some(headers),
            ..self
        }
    }

    /// The headers its source includes (a raw module's), if any.
    pub fn headers(&self) -> Option<&'static Headers> {
        self.headers
    }

    /// The parts, for the instances of a kernel with const parameters.
    pub(super) fn parts(&self) -> &KernelParts {
        &self.parts
    }

    /// The most local memory one thread of the kernel uses, in bytes, as the attribute
    /// bounds it: the `size_of` of every local and local array of the kernel and of the
    /// deepest chain of device functions it calls, a dtype parameter's elements counted
    /// at the largest dtype its bound allows. At most 512 KB (a larger kernel does not
    /// compile); the simulator sizes its stacks by it.
    ///
    /// Methods of user traits called on a dtype parameter (`x.sq()` with `T: Sq`) are
    /// found at run time, so their locals are added here, not at compile time.
    pub fn local_bytes(&self) -> u64 {
        use super::trait_impls::{any_found, runtime_bound};
        let (deps, probes) = (self.parts.device_fns, self.parts.trait_impls);
        if !any_found(deps, probes) {
            return self.parts.local_bytes;
        }
        // The attribute's bound is the kernel's own bytes plus its deepest static chain.
        let own = self
            .parts
            .local_bytes
            .saturating_sub(super::stack::chain_bytes(deps).0);
        runtime_bound(own, deps, probes).max(self.parts.local_bytes)
    }

    /// `Err` unless `dtypes` (a checked signature) implements the user traits its dtype
    /// parameters are bounded by. Checked where C is made for a signature: a typed launch
    /// cannot name another (rustc holds its launcher to the bounds), so launches do not
    /// pay for it.
    pub(crate) fn check_trait_bounds(&self, dtypes: &[DtypeKind]) -> Result<(), GpuError> {
        let generics = self.generics();
        for t in self.parts.trait_impls {
            let (Some(g), Some(&d)) = (generics.get(t.param), dtypes.get(t.param)) else {
                continue;
            };
            if !t.admits(d) {
                return Err(GpuError::InvalidArgument(format!(
                    "kernel `{}`: {d} does not implement the traits {} is bounded by",
                    self.name(),
                    g.name,
                )));
            }
        }
        Ok(())
    }

    /// What a kernel that calls user-trait methods found at run time must be, on both
    /// backends: its module as the GPU's would be (each implementation the method it is
    /// found for, no two of one C type, no cycle), and its local memory per thread, those
    /// methods' included, within what a GPU thread has (without them the attribute's bound
    /// is within it, or the kernel did not compile).
    pub(crate) fn check_local_bound(&self) -> Result<(), GpuError> {
        if !super::trait_impls::any_found(self.parts.device_fns, self.parts.trait_impls) {
            return Ok(());
        }
        self.reachable_device_fns()?;
        let bytes = self.local_bytes();
        if bytes <= super::stack::LOCAL_BYTES_PER_THREAD {
            return Ok(());
        }
        Err(GpuError::InvalidLaunch {
            kernel: self.name(),
            reason: format!(
                "with the user-trait methods it calls (found at run time) it needs {} bytes of \
                 local memory per thread, more than the {} (512 KB) a GPU thread has: make \
                 their local arrays smaller",
                if bytes == u64::MAX {
                    "too many".to_owned()
                } else {
                    bytes.to_string()
                },
                super::stack::LOCAL_BYTES_PER_THREAD
            ),
        })
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

    /// The conditions under which the main entry's left-out checks are redundant. Not a
    /// public API (the test suite's).
    #[doc(hidden)]
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

    /// The module constants the body names, with the values rustc gave them. Not a public
    /// API.
    #[doc(hidden)]
    pub fn constants(&self) -> &'static [ConstValue] {
        self.parts.constants
    }

    /// The device globals (`#[gpu_global]`) the kernel and the device functions it reaches
    /// name, each C symbol once; the error of device functions no compile accepts (a
    /// cycle, two of one name).
    pub(crate) fn global_symbols(&self) -> Result<Vec<GlobalSymbol>, GpuError> {
        let device_fns = self.reachable_device_fns()?;
        let mut out: Vec<GlobalSymbol> = Vec::new();
        let all = device_fns
            .iter()
            .flat_map(|f| f.constants)
            .chain(self.constants());
        for c in all {
            if let Some((info, array)) = c.global() {
                if !out.iter().any(|s| s.c_name == c.c_name()) {
                    out.push(GlobalSymbol {
                        c_name: c.c_name(),
                        array,
                        info,
                    });
                }
            }
        }
        Ok(out)
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

    /// The signatures listed in the attribute's `signatures(...)`.
    pub(crate) fn listed_signatures(&self) -> &'static [&'static [DtypeKind]] {
        self.parts.signatures
    }

    /// Whether the kernel calls `sync_grid()`: launched cooperatively, every block
    /// resident at once.
    pub fn cooperative(&self) -> bool {
        self.parts.cooperative
    }

    /// The block size a kernel with a tensor-core accumulator is made for (its
    /// `launch_bounds` threads), which `forall` then uses on both backends.
    pub(crate) fn exact_block(&self) -> Option<u32> {
        if self.parts.tensor_cores {
            self.parts.options.launch_bounds.map(|(t, _)| t)
        } else {
            None
        }
    }

    /// Refuse a block of another size than a kernel with a tensor-core accumulator is made
    /// for (its `launch_bounds` threads): its warps would not cover the accumulator, or
    /// would read past the tiles.
    pub(crate) fn check_block(&self, block: crate::launch::dims::Dim3) -> Result<(), GpuError> {
        if !self.parts.tensor_cores {
            return Ok(());
        }
        let want = self.parts.options.launch_bounds.map_or(0, |(t, _)| t);
        let got = block.volume();
        if got == u64::from(want) {
            return Ok(());
        }
        Err(GpuError::InvalidLaunch {
            kernel: self.name(),
            reason: format!(
                "its tensor-core accumulator (`mma_acc`) is spread over exactly {want} threads \
                 a block (`launch_bounds({want})`), but this block has {got}: launch blocks of \
                 {want} threads"
            ),
        })
    }

    /// The `#[gpu_struct]`s its signature and body name.
    pub(crate) fn structs(&self) -> &'static [&'static gpu_contract::StructLayout] {
        self.parts.structs
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

    /// The signature's display form, such as `vec_add::<f32>` or, for an instance of a
    /// kernel with const parameters, `tiled::<f32, 64>`.
    pub fn signature(&self, dtypes: &[DtypeKind]) -> String {
        let mut names: Vec<String> = dtypes.iter().map(|d| d.rust_name().to_owned()).collect();
        for (p, &bits) in self.parts.const_params.iter().zip(self.parts.const_args) {
            let at = usize::from(p.position).min(names.len());
            names.insert(at, const_display(p.kind, bits));
        }
        if names.is_empty() {
            return self.name().to_owned();
        }
        format!("{}::<{}>", self.name(), names.join(", "))
    }

    /// The kernel's const parameters (`const BM: usize`), in declaration order.
    pub fn const_params(&self) -> &'static [ConstParam] {
        self.parts.const_params
    }

    /// An instance's values of its const parameters (`[64]` for `tiled::<f32, 64>`), as
    /// [`const_params`](Self::const_params) orders them; empty for a kernel without
    /// const parameters and for such a kernel's generic definition, which cannot compile.
    pub fn const_values(&self) -> Vec<i128> {
        self.parts
            .const_params
            .iter()
            .zip(self.parts.const_args)
            .map(|(p, &bits)| const_int(p.kind, bits))
            .collect()
    }

    /// Check that `dtypes` is a signature of this kernel: one dtype per dtype parameter,
    /// each within its bound.
    pub(crate) fn check_dtypes(&self, dtypes: &[DtypeKind]) -> Result<(), GpuError> {
        if self.parts.const_args.len() != self.parts.const_params.len() {
            let names: Vec<String> = self
                .parts
                .const_params
                .iter()
                .map(|p| format!("`{}: {}`", p.name, p.kind.rust_name()))
                .collect();
            return Err(GpuError::InvalidArgument(format!(
                "kernel `{0}` has const parameters ({1}): this is its generic definition; \
                 compile or inspect an instance, `{0}::definition::<..>()` with their values",
                self.name(),
                names.join(", ")
            )));
        }
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

    /// Every device function the kernel reaches, each after the ones it calls.
    pub(crate) fn reachable_device_fns(&self) -> Result<Vec<&'static DeviceFnDef>, GpuError> {
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
                // The same text under the same name, naming the same module arrays, is
                // the same C (one file's `#[gpu_extern]` blocks, say): compiled once.
                // Two modules' functions of one name and text may name two modules'
                // arrays (a `#[gpu_global]` each): those differ.
                if other.source == f.source && other.constants == f.constants {
                    return Ok(());
                }
                // `u64` and `usize` (`i64` and `isize`) are one type in CUDA C.
                if let (Some((a, m)), Some((b, _))) = (other.trait_self, f.trait_self) {
                    return Err(format!(
                        "the method `{m}` of a user trait is implemented for both {a} and {b}, \
                         one type in CUDA C ({}), and a kernel can reach one of them only: \
                         implement it for one of the two",
                        a.c_name()
                    ));
                }
                return Err(format!(
                    "two different device functions named `{}` are reached (from two modules, or \
                     with different sources: {} and {} bytes); rename one",
                    f.name,
                    other.source.len(),
                    f.source.len()
                ));
            }
            path.push(f);
            for d in f.deps {
                visit(d, path, out)?;
            }
            for t in f.trait_impls {
                for d in t.functions()? {
                    visit(d, path, out)?;
                }
            }
            path.pop();
            out.push(f);
            Ok(())
        }
        let fail = |reason| GpuError::InvalidLaunch {
            kernel: self.name(),
            reason,
        };
        let mut out = Vec::new();
        let mut found = Vec::new();
        for t in self.parts.trait_impls {
            found.extend(t.functions().map_err(fail)?);
        }
        for f in self.parts.device_fns.iter().copied().chain(found) {
            visit(f, &mut Vec::new(), &mut out).map_err(fail)?;
        }
        Ok(out)
    }

    /// Every dtype signature the bounds allow, such as `[[F32], [F64], ...]` for `T: Float`.
    pub(crate) fn all_signatures(&self) -> Vec<Vec<DtypeKind>> {
        let mut out: Vec<Vec<DtypeKind>> = vec![Vec::new()];
        for (i, g) in self.generics().iter().enumerate() {
            // A user trait bound admits the dtypes that implement it.
            let traits: Vec<_> = self
                .parts
                .trait_impls
                .iter()
                .filter(|t| t.param == i)
                .collect();
            let choices: Vec<DtypeKind> = DtypeKind::ALL
                .into_iter()
                .filter(|d| d.satisfies(g.bound) && traits.iter().all(|t| t.admits(*d)))
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

    /// The kernel's signatures, which [`precompile`](Self::precompile) and
    /// [`precompile_for_arch`](Self::precompile_for_arch) compile: those listed in the
    /// attribute's `signatures(...)`, or, when none is, every one the bounds allow (such as
    /// `[[F32], [F64], ...]` for `T: Float`).
    pub fn signatures(&self) -> Vec<Vec<DtypeKind>> {
        if self.listed_signatures().is_empty() {
            self.all_signatures()
        } else {
            self.listed_signatures()
                .iter()
                .map(|s| s.to_vec())
                .collect()
        }
    }
}

/// A const parameter's value as an integer (`bool`: 0 or 1).
fn const_int(kind: DtypeKind, bits: u64) -> i128 {
    match kind.int_bits() {
        b @ 1..=63 if kind.is_signed() => {
            let shift = 64 - b;
            i128::from(((bits << shift) as i64) >> shift)
        }
        64 if kind.is_signed() => i128::from(bits as i64),
        _ => i128::from(bits),
    }
}

/// A const parameter's value as Rust writes it.
fn const_display(kind: DtypeKind, bits: u64) -> String {
    match kind {
        DtypeKind::Bool => (bits != 0).to_string(),
        _ => const_int(kind, bits).to_string(),
    }
}
