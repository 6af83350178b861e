//! The plain data a launch is described by, which the host API hands the backends: the
//! validated dimensions and the device's limits (`dims.rs`), and the codes of arguments
//! and of what a loaded signature's parameters expect (`codes.rs`).

pub(crate) mod codes;
pub(crate) mod dims;
