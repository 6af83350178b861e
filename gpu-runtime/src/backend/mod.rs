//! The two backends behind [`Device`](crate::Device): the CUDA driver (`cuda/`, where every
//! call into the driver, NVRTC, NCCL and NVTX lives) and the CPU simulator (`sim/`), and the
//! store ranks exchange data through (`store.rs`). They are handed plain data and import
//! nothing from the host API.

pub(crate) mod cuda;
pub(crate) mod sim;
pub(crate) mod stack_room;
pub(crate) mod store;
