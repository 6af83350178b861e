//! NVTX's calls: the library, opened by path where the `nvtx` feature is on (see
//! `host/profiling.rs`, the public API over these), and the range the launch path opens
//! around each launch while launches are annotated.

use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use imp::{available, mark, pop, push};

static ANNOTATE_LAUNCHES: AtomicBool = AtomicBool::new(false);

/// Whether every launch from now on opens a range named after its kernel signature.
pub(crate) fn annotate_launches(on: bool) {
    ANNOTATE_LAUNCHES.store(on, Ordering::Relaxed);
}

/// The range around one launch; it ends when dropped.
pub(crate) struct LaunchRange {
    /// NVTX push/pop ranges belong to the thread that opened them: not `Send`.
    _thread: std::marker::PhantomData<*const ()>,
}

impl Drop for LaunchRange {
    fn drop(&mut self) {
        pop();
    }
}

/// The range around one launch, when launches are annotated.
#[inline]
pub(crate) fn launch_range(name: impl FnOnce() -> String) -> Option<LaunchRange> {
    if ANNOTATE_LAUNCHES.load(Ordering::Relaxed) {
        launch_range_named(name())
    } else {
        None
    }
}

#[cold]
fn launch_range_named(name: String) -> Option<LaunchRange> {
    push(&name).then_some(LaunchRange {
        _thread: std::marker::PhantomData,
    })
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

    pub(crate) fn available() -> Result<(), String> {
        library().as_ref().map(drop).map_err(Clone::clone)
    }

    fn c_text(name: &str) -> CString {
        CString::new(name.replace('\0', " ")).unwrap_or_default()
    }

    /// Whether a range was pushed.
    pub(crate) fn push(name: &str) -> bool {
        match library() {
            Ok(n) => {
                // SAFETY: a valid C string, for the duration of the call.
                unsafe { (n.push)(c_text(name).as_ptr()) };
                true
            }
            Err(_) => false,
        }
    }

    pub(crate) fn pop() {
        if let Ok(n) = library() {
            // SAFETY: pops the range `push` opened.
            unsafe { (n.pop)() };
        }
    }

    pub(crate) fn mark(name: &str) {
        if let Ok(n) = library() {
            // SAFETY: a valid C string, for the duration of the call.
            unsafe { (n.mark)(c_text(name).as_ptr()) };
        }
    }
}

#[cfg(not(feature = "nvtx"))]
mod imp {
    pub(crate) fn available() -> Result<(), String> {
        Err("gpu-runtime was built without its `nvtx` feature".to_owned())
    }

    pub(crate) fn push(_: &str) -> bool {
        false
    }

    pub(crate) fn pop() {}

    pub(crate) fn mark(_: &str) {}
}
