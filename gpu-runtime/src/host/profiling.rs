//! NVTX ranges: named spans of host time that Nsight Systems draws above the GPU's
//! timeline (`nsys profile --trace=cuda,nvtx ./program`).
//!
//! Needs the `nvtx` cargo feature (`gpu-runtime = { features = ["nvtx"] }`), which loads
//! NVIDIA's NVTX library at run time: `libnvToolsExt` (CUDA 12 and older, Nsight
//! Systems) or `libnvtx3interop` (CUDA 13), from the library path, a CUDA toolkit or a
//! pip wheel. (cudarc's `nvtx` feature knows only the first name and panics when it is
//! missing, so the crate opens the library itself.) Without the feature, or where the library is
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

use std::sync::atomic::{AtomicBool, Ordering};

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
            imp::pop();
        }
    }
}

/// Open a range named `name` (nested in the ranges open on this thread).
pub fn range(name: &str) -> Range {
    Range {
        open: imp::push(name),
        _thread: std::marker::PhantomData,
    }
}

/// Mark an instant named `name`.
pub fn mark(name: &str) {
    imp::mark(name);
}

static ANNOTATE_LAUNCHES: AtomicBool = AtomicBool::new(false);

/// Wrap every launch from now on in a range named after its kernel signature
/// (`vec_add::<f32>`). Off by default; it costs a string and two library calls per
/// launch while on.
pub fn annotate_launches(on: bool) {
    ANNOTATE_LAUNCHES.store(on && imp::available().is_ok(), Ordering::Relaxed);
}

/// Whether NVTX calls reach the library, or why not.
pub fn status() -> Result<(), String> {
    imp::available()
}

/// The range around one launch, when [`annotate_launches`] is on.
#[inline]
pub(crate) fn launch_range(name: impl FnOnce() -> String) -> Option<Range> {
    if ANNOTATE_LAUNCHES.load(Ordering::Relaxed) {
        Some(range(&name()))
    } else {
        None
    }
}

#[cfg(feature = "nvtx")]
mod imp {
    use std::ffi::{c_char, c_int, CString};
    use std::sync::OnceLock;

    /// The NVTX C API, from `libnvToolsExt` (CUDA 12 and older, Nsight) or
    /// `libnvtx3interop` (CUDA 13).
    struct Nvtx {
        push: unsafe extern "C" fn(*const c_char) -> c_int,
        pop: unsafe extern "C" fn() -> c_int,
        mark: unsafe extern "C" fn(*const c_char),
    }

    fn library() -> &'static Result<Nvtx, String> {
        static NVTX: OnceLock<Result<Nvtx, String>> = OnceLock::new();
        NVTX.get_or_init(|| {
            let names = [
                "libnvToolsExt.so.1",
                "libnvToolsExt.so",
                "libnvtx3interop.so.1",
                "libnvtx3interop.so",
            ];
            let mut candidates: Vec<std::path::PathBuf> =
                names.iter().map(std::path::PathBuf::from).collect();
            candidates.extend(crate::backend::cuda::libraries::library_candidates(
                &names,
                &["nvidia/nvtx/lib", "nvidia/cu13/lib"],
            ));
            for path in &candidates {
                // SAFETY: loading NVIDIA's NVTX library runs only its initialisers.
                let Ok(lib) = (unsafe { libloading::Library::new(path) }) else {
                    continue;
                };
                // SAFETY: the NVTX C API's signatures.
                let found = unsafe {
                    (|| -> Result<Nvtx, libloading::Error> {
                        Ok(Nvtx {
                            push: *lib.get(b"nvtxRangePushA\0")?,
                            pop: *lib.get(b"nvtxRangePop\0")?,
                            mark: *lib.get(b"nvtxMarkA\0")?,
                        })
                    })()
                };
                if let Ok(nvtx) = found {
                    log::info!("NVTX ranges through {}", path.display());
                    // The function pointers stay valid while the library stays loaded.
                    std::mem::forget(lib);
                    return Ok(nvtx);
                }
            }
            Err(
                "neither libnvToolsExt nor libnvtx3interop was found (they ship with the \
                 CUDA toolkit and Nsight Systems)"
                    .to_owned(),
            )
        })
    }

    pub fn available() -> Result<(), String> {
        library().as_ref().map(drop).map_err(Clone::clone)
    }

    fn c_text(name: &str) -> CString {
        CString::new(name.replace('\0', " ")).unwrap_or_default()
    }

    /// Whether a range was pushed.
    pub fn push(name: &str) -> bool {
        match library() {
            Ok(n) => {
                // SAFETY: a valid C string, for the duration of the call.
                unsafe { (n.push)(c_text(name).as_ptr()) };
                true
            }
            Err(_) => false,
        }
    }

    pub fn pop() {
        if let Ok(n) = library() {
            // SAFETY: pops the range `push` opened.
            unsafe { (n.pop)() };
        }
    }

    pub fn mark(name: &str) {
        if let Ok(n) = library() {
            // SAFETY: a valid C string, for the duration of the call.
            unsafe { (n.mark)(c_text(name).as_ptr()) };
        }
    }
}

#[cfg(not(feature = "nvtx"))]
mod imp {
    pub fn available() -> Result<(), String> {
        Err("gpu-runtime was built without its `nvtx` feature".to_owned())
    }

    pub fn push(_: &str) -> bool {
        false
    }

    pub fn pop() {}

    pub fn mark(_: &str) {}
}

#[cfg(test)]
mod tests {
    use super::*;

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
