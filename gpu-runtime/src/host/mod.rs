//! The host API: devices, arrays and what kernels accept of them, launch configurations,
//! streams, events, pinned buffers, interop with cudarc, timing and profiling, and the
//! environment variables the runtime reads. Each file is policy over the two backends
//! (`crate::backend`), which hold every driver call.

pub(crate) mod args;
pub(crate) mod array;
pub(crate) mod array_ops;
pub(crate) mod collective;
pub(crate) mod device;
pub(crate) mod dispatch;
pub(crate) mod event;
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
