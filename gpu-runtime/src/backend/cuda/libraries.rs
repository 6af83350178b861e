//! Finding and loading the CUDA driver and NVRTC without panicking.
//!
//! cudarc loads both libraries by name on first use and panics when it cannot. We check
//! first and turn absence into [`GpuError`].
//!
//! NVRTC is looked for as a file, in order: the file named by `GPU_RUNTIME_NVRTC` (and
//! nothing else when it is set), the folders of `LD_LIBRARY_PATH`, the system's library
//! folders (`/etc/ld.so.conf`), a CUDA toolkit (`CUDA_HOME`, `CUDA_PATH`, `/usr/local/cuda`),
//! and the `nvidia-cuda-nvrtc` pip wheel in the usual Python folders. The file found is
//! opened by path; cudarc's later open by soname then finds the same, already loaded
//! library. Finding the file needs no loading, so a warm disk-cache hit identifies the
//! compiler by its file without paying the tens of milliseconds NVRTC takes to load.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::error::GpuError;

use crate::env::NVRTC_ENV;

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

/// Where NVRTC was found, and every place that was looked at.
struct Located {
    file: Option<PathBuf>,
    searched: Vec<PathBuf>,
    /// Set when `GPU_RUNTIME_NVRTC` names a file: no other place is considered.
    forced: bool,
}

fn located() -> &'static Located {
    static LOCATED: OnceLock<Located> = OnceLock::new();
    LOCATED.get_or_init(|| {
        if let Some(path) = std::env::var_os(NVRTC_ENV).filter(|p| !p.is_empty()) {
            let path = PathBuf::from(path);
            return Located {
                file: path.is_file().then(|| path.clone()),
                searched: vec![path],
                forced: true,
            };
        }
        // The Python folders are listed (a dozen directory reads) only when no other
        // place has NVRTC: a warm cache's first launch asks for the compiler's identity.
        let mut searched = system_candidates(NVRTC_NAMES);
        let mut file = searched.iter().find(|p| p.is_file()).cloned();
        if file.is_none() {
            let wheels = wheel_candidates(NVRTC_NAMES, NVRTC_WHEEL_DIRS);
            file = wheels.iter().find(|p| p.is_file()).cloned();
            searched.extend(wheels);
        }
        Located {
            file,
            searched,
            forced: false,
        }
    })
}

/// Make NVRTC loadable by cudarc, or say why it is not.
pub(crate) fn require_nvrtc() -> Result<(), GpuError> {
    static STATE: OnceLock<Result<(), (String, Vec<PathBuf>)>> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let loc = located();
            match (&loc.file, loc.forced) {
                (Some(file), _) => open_by_path(file)
                    .map_err(|why| (format!("{}: {why}", file.display()), loc.searched.clone())),
                (None, true) => Err((
                    format!("{NVRTC_ENV}={}: no such file", loc.searched[0].display()),
                    loc.searched.clone(),
                )),
                // Last resort: the dynamic loader's own search (its cache, rpaths).
                // SAFETY: only tries to dlopen NVRTC's well-known names.
                (None, false) if unsafe { cudarc::nvrtc::sys::is_culib_present() } => Ok(()),
                (None, false) => Err(("no candidate file exists".to_owned(), loc.searched.clone())),
            }
        })
        .clone()
        .map_err(|(detail, searched)| GpuError::NvrtcNotFound { detail, searched })
}

/// What identifies the compiler in a cache key: the NVRTC file's real name (which carries
/// its full version, `libnvrtc.so.13.0.88`) and size, when it was found as a file (no
/// loading needed), else the version NVRTC reports. Path and time are left out, so a cache
/// filled on one machine serves another with the same NVRTC.
pub(crate) fn nvrtc_identity() -> Result<String, GpuError> {
    static IDENTITY: OnceLock<Result<String, String>> = OnceLock::new();
    IDENTITY
        .get_or_init(|| {
            if let Some(file) = &located().file {
                let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.clone());
                if let Ok(meta) = std::fs::metadata(&real) {
                    let name = real
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    return Ok(format!("file:{name}:{}", meta.len()));
                }
            }
            crate::backend::cuda::nvrtc::nvrtc_version()
                .map(|(major, minor)| format!("version:{major}.{minor}"))
                // Not wrapped twice: the message of a missing NVRTC is its own.
                .map_err(|e| match e {
                    GpuError::NvrtcNotFound { detail, .. } => detail,
                    e => e.to_string(),
                })
        })
        .clone()
        .map_err(|detail| GpuError::NvrtcNotFound {
            detail,
            searched: located().searched.clone(),
        })
}

/// Open `path` and keep it loaded for the life of the process, then check that cudarc's
/// open by soname resolves to it.
fn open_by_path(path: &Path) -> Result<(), String> {
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

/// Every file NVRTC may be, in search order.
const NVRTC_NAMES: &[&str] = &["libnvrtc.so.13", "libnvrtc.so"];
const NVRTC_WHEEL_DIRS: &[&str] = &["nvidia/cu13/lib"];

/// Every path where one of the libraries `names` may be, in search order: the library
/// path, the system folders, a CUDA toolkit, and `wheel_dirs` of the Python site folders.
pub(crate) fn library_candidates(names: &[&str], wheel_dirs: &[&str]) -> Vec<PathBuf> {
    let mut out = system_candidates(names);
    for p in wheel_candidates(names, wheel_dirs) {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// [`library_candidates`] but the Python folders.
fn system_candidates(names: &[&str]) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        dirs.extend(std::env::split_paths(&paths));
    }
    dirs.extend(ld_so_conf_dirs(Path::new("/etc/ld.so.conf")));
    dirs.extend(
        [
            "/lib/x86_64-linux-gnu",
            "/usr/lib/x86_64-linux-gnu",
            "/lib64",
            "/usr/lib64",
            "/lib",
            "/usr/lib",
        ]
        .map(PathBuf::from),
    );
    for var in ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"] {
        if let Some(root) = std::env::var_os(var) {
            dirs.push(Path::new(&root).join("lib64"));
            dirs.push(Path::new(&root).join("lib"));
        }
    }
    dirs.push("/usr/local/cuda/lib64".into());
    paths_in(&dirs, names)
}

/// The paths of `names` in `wheel_dirs` of the Python site folders.
fn wheel_candidates(names: &[&str], wheel_dirs: &[&str]) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = python_site_dirs()
        .iter()
        .flat_map(|site| wheel_dirs.iter().map(|w| site.join(w)))
        .collect();
    paths_in(&dirs, names)
}

/// Each of `names` in each of `dirs`, in order, each path once.
fn paths_in(dirs: &[PathBuf], names: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for d in dirs.iter().filter(|d| !d.as_os_str().is_empty()) {
        for n in names {
            let p = d.join(n);
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The folders listed in an `ld.so.conf`, following its `include` lines.
fn ld_so_conf_dirs(conf: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(conf) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(pattern) = line.strip_prefix("include") {
            // Only the common form `include /etc/ld.so.conf.d/*.conf`.
            let pattern = Path::new(pattern.trim());
            let (Some(dir), Some(name)) = (pattern.parent(), pattern.file_name()) else {
                continue;
            };
            let suffix = name.to_string_lossy().trim_start_matches('*').to_owned();
            if let Ok(entries) = std::fs::read_dir(dir) {
                let mut files: Vec<PathBuf> = entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.to_string_lossy().ends_with(&suffix))
                    .collect();
                files.sort();
                for f in files {
                    out.extend(ld_so_conf_dirs(&f));
                }
            }
        } else if line.starts_with('/') {
            out.push(PathBuf::from(line));
        }
    }
    out
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
