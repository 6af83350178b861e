//! The kernel language's built-in functions and types, as the simulator runs them: thread
//! geometry, shared memory, barriers and fences, warp functions, atomics, and vector
//! loads and stores. On the GPU each becomes the CUDA C the attribute writes for it; these
//! Rust definitions are what rustc type-checks a kernel body against and what the
//! simulator executes.

pub mod atomic;
pub(crate) mod barrier;
pub(crate) mod geometry;
pub(crate) mod print;
pub mod shared;
pub(crate) mod vector;
pub(crate) mod warp;
