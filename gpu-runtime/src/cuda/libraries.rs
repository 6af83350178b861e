//! Finding and loading the CUDA driver and NVRTC without panicking.
//!
//! cudarc loads both libraries by name on first use and panics when it cannot. We check
//! first and turn absence into [`GpuError`]. NVRTC is looked for, in order: the file named
//! by `GPU_RUNTIME_NVRTC` (and nothing else when it is set), the system's library path,
//! a CUDA toolkit (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda`), and the
//! `nvidia-cuda-nvrtc` pip wheel in the usual Python folders. A file found by path is
//! opened first; cudarc's later open by soname then finds the same, already loaded library.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::GpuError;

/// Environment variable naming the NVRTC library file to use.
pub const NVRTC_ENV: &str = "GPU_RUNTIME_NVRTC";

/// Whether the CUDA driver library can be loaded; the error says what was tried.
pub(crate) fn require_driver() -> Result<(), GpuError> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: `is_culib_present` only tries to dlopen the driver's well-known names.
    let present = *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() });
    if present {
        Ok(())
    } else {
        Err(GpuError::DriverNotFound {
            detail: "libcuda.so.1 is not on the library path".to_owned(),
        })
    }
}

/// Make NVRTC loadable by cudarc, or say why it is not.
pub(crate) fn require_nvrtc() -> Result<(), GpuError> {
    static STATE: OnceLock<Result<(), (String, Vec<PathBuf>)>> = OnceLock::new();
    STATE
        .get_or_init(locate_nvrtc)
        .clone()
        .map_err(|(detail, searched)| GpuError::NvrtcNotFound { detail, searched })
}

fn locate_nvrtc() -> Result<(), (String, Vec<PathBuf>)> {
    if let Some(path) = std::env::var_os(NVRTC_ENV).filter(|p| !p.is_empty()) {
        let path = PathBuf::from(path);
        return open_by_path(&path)
            .map_err(|why| (format!("{NVRTC_ENV}={}: {why}", path.display()), vec![path]));
    }
    // SAFETY: only tries to dlopen NVRTC's well-known names.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Ok(());
    }
    let candidates = candidate_paths();
    let mut last = "no candidate file exists".to_owned();
    for path in &candidates {
        if !path.is_file() {
            continue;
        }
        match open_by_path(path) {
            Ok(()) => return Ok(()),
            Err(why) => last = format!("{}: {why}", path.display()),
        }
    }
    let mut searched = vec![PathBuf::from(
        "the system library path (libnvrtc.so.13, ...)",
    )];
    searched.extend(candidates);
    Err((last, searched))
}

/// Open `path` and keep it loaded for the life of the process, then check that cudarc's
/// open by soname resolves to it.
fn open_by_path(path: &Path) -> Result<(), String> {
    if !path.is_file() {
        return Err("no such file".to_owned());
    }
    // NVRTC opens its builtins library by soname at compile time; where it came from a
    // folder that is not on the library path (a pip wheel), load that one first so the
    // open finds it.
    if let Some(dir) = path.parent() {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with("libnvrtc-builtins.so") {
                    // SAFETY: as below; failure only means NVRTC will look for it itself.
                    if let Ok(lib) = unsafe { libloading::Library::new(entry.path()) } {
                        std::mem::forget(lib);
                    }
                }
            }
        }
    }
    // SAFETY: loading NVRTC runs only its (trusted, vendor) initialisers.
    let lib = unsafe { libloading::Library::new(path) }.map_err(|e| e.to_string())?;
    // Keep it loaded: cudarc resolves its symbols later, by soname.
    std::mem::forget(lib);
    // SAFETY: as above.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(
            "it loaded, but its soname is not one of the names cudarc binds to (libnvrtc.so.13 \
             for CUDA 13); point at the libnvrtc.so.13 of a CUDA 13 install"
                .to_owned(),
        )
    }
}

fn candidate_paths() -> Vec<PathBuf> {
    const NAMES: [&str; 2] = ["libnvrtc.so.13", "libnvrtc.so"];
    let mut dirs: Vec<PathBuf> = Vec::new();
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(root) = std::env::var_os(var) {
            dirs.push(Path::new(&root).join("lib64"));
            dirs.push(Path::new(&root).join("lib"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    dirs.extend(
        python_site_dirs()
            .into_iter()
            .map(|d| d.join("nvidia/cu13/lib")),
    );
    dirs.iter()
        .flat_map(|d| NAMES.iter().map(move |n| d.join(n)))
        .collect()
}

/// Folders where pip puts packages: the active virtual environment, the user's, pyenv's
/// and the system's.
fn python_site_dirs() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if let Some(venv) = std::env::var_os("VIRTUAL_ENV") {
        roots.push(Path::new(&venv).join("lib"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        roots.push(home.join(".local/lib"));
        if let Ok(versions) = std::fs::read_dir(home.join(".pyenv/versions")) {
            roots.extend(versions.flatten().map(|v| v.path().join("lib")));
        }
    }
    roots.extend(["/usr/local/lib", "/usr/lib", "/opt/conda/lib"].map(PathBuf::from));
    let mut out = Vec::new();
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.file_name().to_string_lossy().starts_with("python3") {
                out.push(entry.path().join("site-packages"));
                out.push(entry.path().join("dist-packages"));
            }
        }
    }
    out
}
