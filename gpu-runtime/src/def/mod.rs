//! What the attributes leave in the binary, as data: kernel definitions (`kernel.rs`),
//! device-function definitions (`device_fn.rs`) and the module constants they name
//! (`module_const.rs`). Compiling them is `compile/`'s; launching them, `host/`'s.
//!
//! Public for the code that inspects kernels or compiles them ahead of a launch: a kernel
//! `k`'s definition is `k::definition()`, a [`KernelDef`], whose methods compile it
//! ([`KernelDef::precompile`], [`KernelDef::precompile_for_arch`], [`KernelDef::cubin`],
//! [`KernelDef::ptx`]) for a signature of [`DtypeKind`]s. The other types describe what
//! the attributes parsed (parameters, dtype parameters and their bounds, options,
//! `#[gpu_struct]` layouts); they are shared with the translator, through `gpu-contract`.

pub(crate) mod device_fn;
pub(crate) mod headers;
pub(crate) mod instances;
pub(crate) mod kernel;
pub(crate) mod module_array;
pub(crate) mod module_const;
pub(crate) mod stack;
pub(crate) mod trait_impls;

pub use crate::dtype::DtypeKind;
pub use device_fn::DeviceFnDef;
pub use gpu_contract::{
    Bound, ElemKind, FieldLayout, GenericParam, KernelOptions, ParamDef, ParamKind, StructLayout,
};
pub use headers::Headers;
pub use kernel::{ConstParam, KernelDef};
