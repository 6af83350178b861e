//! What the attributes leave in the binary, as data: kernel definitions (`kernel.rs`),
//! device-function definitions (`device_fn.rs`) and the module constants they name
//! (`module_const.rs`). Compiling them is `compile/`'s; launching them, `host/`'s.

pub(crate) mod device_fn;
pub(crate) mod kernel;
pub(crate) mod module_const;
