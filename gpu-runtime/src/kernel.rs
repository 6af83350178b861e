//! What the attribute leaves in the binary for each kernel, and how a dtype signature of
//! it becomes CUDA C and then machine code.

use std::sync::atomic::AtomicU32;

use crate::cuda::nvrtc::{compile_to_cubin, CompileFailure};
use crate::cuda_prelude::CUDA_PRELUDE;
use crate::dtype::{Bound, DtypeKind};
use crate::error::GpuError;

/// A kernel as the attribute describes it: its name, CUDA C source and parameters.
///
/// Made by `#[gpu_kernel]`; reach it through the kernel's `definition()` method.
#[derive(Debug)]
pub struct KernelDef {
    /// The Rust name of the kernel.
    pub name: &'static str,
    /// The name of the `__global__` function in the CUDA source.
    pub c_name: &'static str,
    /// The translated CUDA C, with the generic dtype parameters left as type names that
    /// [`KernelDef::specialize`] defines.
    pub source: &'static str,
    /// The generic dtype parameters, in declaration order.
    pub generics: &'static [GenericParam],
    /// The parameters, in declaration order.
    pub params: &'static [ParamDef],
    #[doc(hidden)]
    pub signature_slots: &'static [AtomicU32],
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
        let mut out = String::with_capacity(CUDA_PRELUDE.len() + self.source.len() + 128);
        out.push_str(CUDA_PRELUDE);
        for (g, d) in self.generics.iter().zip(dtypes) {
            if !d.satisfies(g.bound) {
                return Err(GpuError::InvalidArgument(format!(
                    "kernel `{}`: {} does not satisfy the bound {}: {:?}",
                    self.name, d, g.name, g.bound
                )));
            }
            out.push_str(&format!("typedef {} {};\n", d.c_name(), g.c_name));
        }
        out.push_str(self.source);
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
    /// NVRTC. Needs no GPU, so a CPU-only machine can check kernels or fill a cache.
    pub fn compile_for_arch(&self, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>, GpuError> {
        let source = self.specialize(dtypes)?;
        match compile_to_cubin(&source, &format!("{}.cu", self.name), arch, &[]) {
            Ok(cubin) => Ok(cubin.image),
            Err(CompileFailure::Environment(e)) => Err(e),
            Err(CompileFailure::Rejected { log }) => Err(GpuError::Compile {
                kernel: self.name.to_owned(),
                signature: self.signature(dtypes),
                arch: arch.to_owned(),
                log,
                source_code: source,
            }),
        }
    }
}
