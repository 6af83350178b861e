//! The translator behind `#[gpu_kernel]`, `#[gpu_device]` and `#[gpu_elementwise]`, as a
//! plain library over `proc_macro2` and `syn`.
//!
//! The pipeline, one folder or file per step:
//!
//! 1. `parse/`: the attribute's options and the function's signature.
//! 2. `desugar/`: everyday Rust in the body (iterator loops, `match`, `loop` values)
//!    rewritten into the core the later steps know; both backends start from the result.
//! 3. `lower/`: the body into the kernel IR (`ir/`), inferring types as it goes
//!    (`infer.rs`).
//! 4. `check/`: resolve every type, validate every operation, prove indices in range.
//! 5. `emit_cuda/`: the CUDA C; `emit_rust/`: the launcher, the kernel's module and the
//!    body as the simulator runs it.
//!
//! `expand/` runs the steps for each attribute. Errors are collected
//! (`diagnostics.rs`) and emitted beside a launcher of the right signature, so a user sees
//! the real mistakes and no follow-on errors. `gpu-macros` is a thin shell over
//! [`expand_kernel`], [`expand_device`] and [`expand_elementwise`]; tests and tools call
//! them, or [`translate_kernel`], directly.
//!
//! Depend on `gpu-runtime`, which re-exports the attributes.

mod check;
mod desugar;
mod diagnostics;
mod emit_cuda;
mod emit_rust;
mod expand;
mod infer;
mod ir;
mod lower;
mod names;
mod parse;
mod print_format;

pub use diagnostics::Diagnostics;
pub use expand::enums::expand_enum;
pub use expand::foreign::expand_extern;
pub use expand::globals::expand_global;
pub use expand::structs::{expand_struct, expand_with_structs};
pub use expand::{
    expand_device, expand_elementwise, expand_kernel, expand_reduce, translate_device,
    translate_kernel, translate_kernel_with_structs, Translated,
};
