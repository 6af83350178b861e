//! What the `#[gpu_kernel]` translator and the runtime must agree on.
//!
//! Contract: every fact that the generated code and the runtime both rely on is defined
//! here once, as data or as an exhaustive `match` (never a `_ =>` arm), so adding a dtype,
//! a kernel option, an intrinsic or a math function is one edit and the compiler finds
//! every place that must handle it. The crate has no dependencies: the proc-macro side
//! (`gpu-translate`) and the runtime (`gpu-runtime`) both use it.
//!
//! Depend on `gpu-runtime`, which re-exports what users need.
#![deny(missing_docs)]

pub mod check_names;
pub mod dtype;
pub mod fast_path;
pub mod fault;
pub mod kernel;
pub mod language;
pub mod mma;
pub mod options;
pub mod struct_layout;

pub use dtype::{Bound, DtypeKind, DTYPE_SLOTS, MAX_GENERICS};
pub use kernel::{ElemType, GenericParam, ParamDef, ParamKind};
pub use options::{KernelOptions, OptionSpec, OptionValue, OPTIONS};
pub use struct_layout::{ElemKind, FieldLayout, StructLayout};
