//! The two backends behind [`Device`](crate::Device): the CUDA driver (`cuda/`, where every
//! driver call lives) and the CPU simulator (`sim/`).

pub(crate) mod cuda;
pub(crate) mod sim;
