//! Compilation: from a kernel signature to machine code.
//!
//! `kernel_def.rs` holds what the attribute leaves in the binary and specialises it;
//! `prelude/` is the CUDA C every kernel starts with; `nvrtc.rs` runs NVRTC; `cache.rs` is
//! the disk cache; `raw.rs` compiles hand-written CUDA C through the same path. This file
//! ties them together: specialise, look in the disk cache, compile with NVRTC on a miss,
//! store, and report each step to `log`.
//!
//! `GPU_RUNTIME_DUMP=<dir>` also writes every specialised source (`.cu`) and its PTX
//! (`.ptx`, where NVRTC is present) to `<dir>`, named `<kernel>-<dtypes>-<arch>`, on cache
//! hits too.

pub mod cache;
pub(crate) mod kernel_def;
pub(crate) mod module_const;
pub(crate) mod nvrtc;
pub(crate) mod prelude;
pub mod raw;

use std::path::PathBuf;
use std::time::Instant;

use crate::backend::cuda::libraries::nvrtc_identity;
use crate::dtype::DtypeKind;
use crate::error::GpuError;
use cache::{CacheInputs, CacheKey, DiskCache, Lookup};
use kernel_def::KernelDef;
use nvrtc::{compile_program, CompileFailure, Output};

/// Writes specialised sources and PTX to this folder.
pub const DUMP_ENV: &str = "GPU_RUNTIME_DUMP";

const CRATE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The CUBIN of `def` for `dtypes` on `arch`, from the disk cache or from NVRTC.
///
/// The cache key does not hold NVRTC's identity, so a warm cache serves a program on a
/// machine without NVRTC; each entry records the NVRTC that compiled it instead, and where
/// NVRTC is present and is another one, the kernel is compiled again (and the entry
/// replaced), so a new compiler never runs an old compiler's code.
pub(crate) fn compile_cached(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
) -> Result<Vec<u8>, GpuError> {
    let source = def.specialize(dtypes)?;
    let options = def.options().nvrtc_flags();
    let signature = def.signature(dtypes);
    dump(def, dtypes, arch, &source, &options);
    let cache = DiskCache::from_env();
    let key = cache.map(|_| {
        CacheKey::of(&CacheInputs {
            source: &source,
            options: &options,
            arch,
            crate_version: CRATE_VERSION,
        })
    });
    if let (Some(cache), Some(key)) = (cache, &key) {
        match cache.load(key) {
            Lookup::Hit(entry) => match split_entry(&entry) {
                Some((compiled_by, cubin)) => match nvrtc_identity() {
                    Ok(here) if here != compiled_by => log::info!(
                        "kernel cache entry for {signature} for {arch} was compiled by NVRTC \
                         {compiled_by}, and this is {here}: compiling it again"
                    ),
                    Ok(_) => {
                        log::debug!("kernel cache hit: {signature} for {arch} ({key:?})");
                        return Ok(cubin.to_vec());
                    }
                    Err(_) => {
                        log::info!(
                            "kernel cache hit without NVRTC: {signature} for {arch}, compiled \
                             by NVRTC {compiled_by}"
                        );
                        return Ok(cubin.to_vec());
                    }
                },
                None => log::warn!(
                    "kernel cache entry for {signature} ({key:?}) has no compiler record: \
                     compiling it again"
                ),
            },
            Lookup::Miss => log::debug!("kernel cache miss: {signature} for {arch} ({key:?})"),
            Lookup::Rejected(why) => {
                log::warn!(
                    "kernel cache entry for {signature} ({key:?}) rejected and removed: {why}"
                )
            }
        }
    }
    // A miss needs NVRTC; say so where it is missing.
    let compiled_by = nvrtc_identity().map_err(|e| match e {
        GpuError::NvrtcNotFound { detail, searched } => GpuError::NvrtcNotFound {
            detail: match cache {
                Some(c) => format!(
                    "`{signature}` for {arch} is not in the kernel cache ({}), so it must be \
                     compiled, and {detail}",
                    c.dir().display()
                ),
                None => detail,
            },
            searched,
        },
        e => e,
    })?;
    let t = Instant::now();
    let cubin = run_nvrtc(def, dtypes, arch, &source, &options, Output::Cubin)?;
    log::info!(
        "compiled {signature} for {arch} in {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    if let (Some(cache), Some(key)) = (cache, &key) {
        // SAFETY: the entry's CUBIN is what NVRTC just compiled from the inputs of `key`.
        unsafe { cache.store(key, &entry(&compiled_by, &cubin)) };
    }
    Ok(cubin)
}

/// A cache entry's payload: the identity of the NVRTC that compiled it (length-prefixed),
/// then the CUBIN.
fn entry(compiled_by: &str, cubin: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(4 + compiled_by.len() + cubin.len());
    v.extend_from_slice(&(compiled_by.len() as u32).to_le_bytes());
    v.extend_from_slice(compiled_by.as_bytes());
    v.extend_from_slice(cubin);
    v
}

/// The compiler's identity and the CUBIN of an entry's payload; `None` if malformed.
fn split_entry(payload: &[u8]) -> Option<(&str, &[u8])> {
    let len = u32::from_le_bytes(payload.get(..4)?.try_into().ok()?) as usize;
    let name = payload.get(4..4usize.checked_add(len)?)?;
    Some((std::str::from_utf8(name).ok()?, &payload[4 + len..]))
}

/// The CUBIN of `def` for `dtypes` on `arch`, from NVRTC, bypassing the cache.
pub(crate) fn compile_uncached(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
) -> Result<Vec<u8>, GpuError> {
    let source = def.specialize(dtypes)?;
    let options = def.options().nvrtc_flags();
    run_nvrtc(def, dtypes, arch, &source, &options, Output::Cubin)
}

/// The PTX of `def` for `dtypes`, for the virtual architecture of `arch`.
pub(crate) fn compile_ptx(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
) -> Result<String, GpuError> {
    let source = def.specialize(dtypes)?;
    let options = def.options().nvrtc_flags();
    let virtual_arch = arch.replacen("sm_", "compute_", 1);
    let ptx = run_nvrtc(def, dtypes, &virtual_arch, &source, &options, Output::Ptx)?;
    Ok(String::from_utf8_lossy(&ptx)
        .trim_end_matches('\0')
        .to_owned())
}

fn run_nvrtc(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
    source: &str,
    options: &[String],
    output: Output,
) -> Result<Vec<u8>, GpuError> {
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    compile_program(
        source,
        &format!("{}.cu", def.name()),
        arch,
        &options,
        output,
    )
    .map_err(|failure| match failure {
        CompileFailure::Environment(e) => e,
        CompileFailure::Rejected { log } => GpuError::Compile {
            kernel: def.name().to_owned(),
            signature: def.signature(dtypes),
            arch: arch.to_owned(),
            log,
            source_code: source.to_owned(),
        },
    })
}

fn dump(def: &KernelDef, dtypes: &[DtypeKind], arch: &str, source: &str, options: &[String]) {
    let Some(dir) = std::env::var_os(DUMP_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
    else {
        return;
    };
    let names: Vec<&str> = dtypes.iter().map(|d| d.rust_name()).collect();
    let stem = format!("{}-{}-{arch}", def.name(), names.join("_"));
    let write = |ext: &str, bytes: &[u8]| {
        let path = dir.join(format!("{stem}.{ext}"));
        if let Err(e) = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, bytes)) {
            log::warn!("{DUMP_ENV}: cannot write {}: {e}", path.display());
        }
    };
    write("cu", source.as_bytes());
    let virtual_arch = arch.replacen("sm_", "compute_", 1);
    let opts: Vec<&str> = options.iter().map(String::as_str).collect();
    match compile_program(
        source,
        &format!("{}.cu", def.name()),
        &virtual_arch,
        &opts,
        Output::Ptx,
    ) {
        Ok(ptx) => write("ptx", &ptx),
        Err(e) => log::warn!("{DUMP_ENV}: no PTX for {stem}: {e:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_its_compiler_and_its_cubin() {
        let e = entry("file:libnvrtc.so.13.0.88:123", b"\x7fELF...");
        assert_eq!(
            split_entry(&e),
            Some(("file:libnvrtc.so.13.0.88:123", &b"\x7fELF..."[..]))
        );
        assert_eq!(split_entry(&entry("", b"")), Some(("", &b""[..])));
    }

    #[test]
    fn malformed_entries_are_not_split() {
        assert_eq!(split_entry(b""), None);
        assert_eq!(split_entry(b"\x05\x00\x00\x00abc"), None);
        assert_eq!(split_entry(&[0xff, 0xff, 0xff, 0xff, 1, 2]), None);
        assert_eq!(split_entry(b"\x02\x00\x00\x00\xff\xfe"), None);
    }
}
