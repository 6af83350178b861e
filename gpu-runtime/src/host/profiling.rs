//! NVTX ranges: named spans of host time that Nsight Systems draws above the GPU's
//! timeline (`nsys profile --trace=cuda,nvtx ./program`).
//!
//! Needs the `nvtx` cargo feature (`gpu-runtime = { features = ["nvtx"] }`), which loads
//! NVIDIA's NVTX library at run time: `libnvToolsExt` (CUDA 12 and older, Nsight
//! Systems) or `libnvtx3interop` (CUDA 13), from the library path, a CUDA toolkit or a
//! pip wheel. (cudarc's `nvtx` feature knows only the first name and panics when it is
//! missing, so the crate opens the library itself: the CUDA backend's `nvtx.rs`.) Without
//! the feature, or where the library is
//! missing, every call here does nothing and [`status`] says why, so profiling code can
//! stay in a program that also runs elsewhere.
//!
//! ```
//! let _all = gpu_runtime::profiling::range("whole step");
//! {
//!     let _upload = gpu_runtime::profiling::range("upload");
//!     // ... copies ...
//! } // the "upload" range ends here
//! gpu_runtime::profiling::annotate_launches(true); // each launch in a range of its own
//! ```

use crate::backend::cuda::nvtx;

/// An open NVTX range; it ends when dropped.
#[must_use = "the range ends when this guard is dropped"]
#[derive(Debug)]
pub struct Range {
    open: bool,
    /// NVTX push/pop ranges belong to the thread that opened them: not `Send`.
    _thread: std::marker::PhantomData<*const ()>,
}

impl Drop for Range {
    fn drop(&mut self) {
        if self.open {
            nvtx::pop();
        }
    }
}

/// Open a range named `name` (nested in the ranges open on this thread).
pub fn range(name: &str) -> Range {
    Range {
        open: nvtx::push(name),
        _thread: std::marker::PhantomData,
    }
}

/// Mark an instant named `name`.
pub fn mark(name: &str) {
    nvtx::mark(name);
}

/// Wrap every launch from now on in a range named after its kernel signature
/// (`vec_add::<f32>`). Off by default; it costs a string and two library calls per
/// launch while on.
pub fn annotate_launches(on: bool) {
    nvtx::annotate_launches(on && nvtx::available().is_ok());
}

/// Whether NVTX calls reach the library, or why not.
pub fn status() -> Result<(), String> {
    nvtx::available()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cuda::nvtx::launch_range;

    #[test]
    fn ranges_open_exactly_when_the_library_is_there() {
        let available = status().is_ok();
        let r = range("test");
        assert_eq!(r.open, available);
        drop(r);
        annotate_launches(true);
        assert_eq!(launch_range(|| "k".to_owned()).is_some(), available);
        annotate_launches(false);
        assert!(launch_range(|| "k".to_owned()).is_none());
        if !available {
            assert!(!status().unwrap_err().is_empty());
        }
    }
}
