//! The CUDA backend: every call into the driver, NVRTC, NCCL and NVTX, so the layers above
//! read as policy. It is handed plain data (a kernel definition, a validated launch, packed
//! arguments, whether a capture is open) and asks nothing of the host API.
//!
//! `device.rs` opens a device (its context, limits and fault record) and waits for it;
//! `modules.rs` loads a kernel signature's module from the image the compile layer made and
//! keeps its entries; `launch.rs` queues an entry, as validated, with its arguments;
//! `function_table.rs` finds a loaded kernel without hashing or locking; `fault.rs` turns
//! the driver's sticky errors into [`GpuError::DeviceFault`](crate::GpuError::DeviceFault);
//! `fault_record.rs` is the device-wide record checked kernels report their first fault in;
//! `globals.rs` keeps each device's copies of the `#[gpu_global]`s and orders the launches
//! that name them; `handles.rs`, `buffer.rs`, `graph.rs` and `peer.rs` are the driver calls of streams and
//! events, memory, graphs and peer copies; `libraries.rs` finds and loads the driver,
//! NVRTC and NVTX; `nvrtc.rs` compiles with NVRTC; `nvtx.rs` makes NVTX's calls; `nccl.rs`
//! binds NCCL, `nccl_comm.rs` watches one rank's communicator, `nccl_close.rs` closes it, and
//! `nccl_group.rs` submits its operations, at once or in a group.

pub(crate) mod buffer;
mod device;
mod fault;
mod fault_record;
mod function_table;
mod globals;
pub(crate) mod graph;
pub(crate) mod handles;
mod launch;
pub(crate) mod libraries;
mod modules;
pub(crate) mod nccl;
mod nccl_close;
pub(crate) mod nccl_comm;
pub(crate) mod nccl_group;
pub(crate) mod nvrtc;
pub(crate) mod nvtx;
pub(crate) mod peer;

pub(crate) use device::{device_count, CudaDevice};
pub use modules::FunctionAttributes;
pub(crate) use modules::{Entry, LoadedKernel};
