//! The host API: devices, arrays and what kernels accept of them, launch configurations
//! and the launch itself (`dispatch.rs`, with the arguments' checks in `packing.rs`),
//! streams, events, graphs, pinned buffers, interop with cudarc, timing and profiling,
//! collectives, and kernels written in CUDA C (`raw/`). Each file is policy over the two
//! backends (`crate::backend`), which hold every driver, NVRTC, NCCL and NVTX call.

pub(crate) mod args;
pub(crate) mod array;
pub(crate) mod array_ops;
pub(crate) mod collective;
pub(crate) mod device;
pub(crate) mod dispatch;
pub(crate) mod event;
pub(crate) mod globals;
pub(crate) mod graph;
pub(crate) mod interop;
pub(crate) mod launch_config;
#[cfg(feature = "ndarray")]
pub(crate) mod ndarray_interop;
pub(crate) mod packing;
pub(crate) mod pinned;
pub mod profiling;
pub mod raw;
pub(crate) mod rendezvous;
pub(crate) mod stream;
pub(crate) mod timing;
pub(crate) mod view;
