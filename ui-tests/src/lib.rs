//! trybuild diagnostics suite for `#[gpu_kernel]`; see tests/ui.rs.
