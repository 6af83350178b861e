//! The plain data a launch is described by, which the host API hands the backends: the
//! validated dimensions and the device's limits (`dims.rs`).

pub(crate) mod dims;
