//! Compilation: from a kernel signature to machine code.
//!
//! `specialize.rs` makes a kernel definition's (`crate::def`) CUDA C for a dtype signature;
//! `prelude/` is the CUDA C every kernel starts with; `cache.rs` is the disk cache. This
//! file ties them together: specialise, look in the disk cache, compile with NVRTC (the
//! CUDA backend's `nvrtc.rs`) on a miss, store, and report each step to `log`. Hand-written
//! CUDA C (the host API's `raw/`) compiles through the same path.
//!
//! `GPU_RUNTIME_DUMP=<dir>` also writes every specialised source (`.cu`) and its PTX
//! (`.ptx`, where NVRTC is present) to `<dir>`, named `<kernel>-<dtypes>-<arch>`, on cache
//! hits too.

pub mod cache;
pub(crate) mod headers;
pub(crate) mod prelude;
mod specialize;

use std::path::PathBuf;
use std::time::Instant;

use crate::backend::cuda::libraries::nvrtc_identity;
use crate::backend::cuda::nvrtc::{compile_program, CompileFailure, Output};
use crate::def::kernel::{KernelDef, Unit};
use crate::dtype::DtypeKind;
use crate::error::GpuError;
use cache::{CacheInputs, CacheKey, DiskCache, Lookup};
use gpu_contract::KernelOptions;

use crate::env::DUMP_ENV;

const CRATE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The machine code of `def` for `dtypes` on `arch`, from the disk cache or from NVRTC:
/// a CUBIN, or where NVRTC is absent and the cache holds no CUBIN for `arch`, the PTX a
/// compilation for the same or an older architecture kept, for the driver's JIT.
///
/// The cache key does not hold NVRTC's identity, so a warm cache serves a program on a
/// machine without NVRTC; each entry records the NVRTC that compiled it instead, and where
/// NVRTC is present and is another one, the kernel is compiled again (and the entry
/// replaced), so a new compiler never runs an old compiler's code.
pub(crate) fn compile_cached(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
    unit: Unit,
) -> Result<Vec<u8>, GpuError> {
    Job::new(def, dtypes, arch, unit)?.compile()
}

impl Job<'_> {
    /// [`compile_cached`] of this job.
    fn compile(&self) -> Result<Vec<u8>, GpuError> {
        let arch = self.arch.as_str();
        dump(
            self.def,
            self.dtypes,
            arch,
            self.unit,
            &self.source,
            &self.options,
        );
        if let Some(cache) = self.cache {
            if let Some(cubin) = cached_cubin(cache, &self.key(arch), &self.signature, arch) {
                return Ok(cubin);
            }
        }
        // A miss needs NVRTC; without it, PTX kept beside a CUBIN for this or an older
        // architecture still runs, through the driver's JIT.
        let compiled_by = match nvrtc_identity() {
            Ok(identity) => identity,
            Err(GpuError::NvrtcNotFound { detail, searched }) => {
                let Some(cache) = self.cache else {
                    return Err(GpuError::NvrtcNotFound { detail, searched });
                };
                let why = match self.cached_ptx() {
                    Ok((ptx, target)) => {
                        log::info!(
                            "kernel cache has no CUBIN of {} for {arch} and NVRTC is absent: \
                         loading its {target} PTX through the driver's JIT",
                            self.signature
                        );
                        return Ok(ptx);
                    }
                    Err(why) => why,
                };
                return Err(GpuError::NvrtcNotFound {
                    detail: format!(
                        "`{}` for {arch} is not in the kernel cache ({}; {why}), so it must be \
                     compiled, and {detail}",
                        self.signature,
                        cache.dir().display()
                    ),
                    searched,
                });
            }
            Err(e) => return Err(e),
        };
        let t = Instant::now();
        let mut images = self.run_nvrtc(arch, &[Output::Cubin, Output::Ptx])?;
        let ptx = images.pop().unwrap_or_default();
        let cubin = images.pop().unwrap_or_default();
        log::info!(
            "compiled {}{} for {arch} in {:.1} ms",
            self.signature,
            if self.unit == Unit::Checked {
                " (checked entry)"
            } else {
                ""
            },
            t.elapsed().as_secs_f64() * 1e3
        );
        if let Some(cache) = self.cache.filter(|_| self.headers_unchanged()) {
            // SAFETY: the entry's CUBIN is what NVRTC just compiled from the inputs of the key
            // (the headers read the same after the compilation as before it).
            unsafe { cache.store(&self.key(arch), &entry(&compiled_by, &cubin)) };
            self.store_ptx(&compiled_by, &ptx);
        }
        Ok(cubin)
    }
}

/// The module a first launch of `dtypes` loads for `arch`: a CUBIN through the disk cache,
/// or, where NVRTC is absent and the cache holds only PTX, that PTX for the driver's JIT.
pub(crate) fn compile_main(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
) -> Result<Vec<u8>, GpuError> {
    compile_cached(def, dtypes, arch, Unit::Main)
}

/// Compiling ahead of the first launch, one family: [`precompile`](KernelDef::precompile)
/// for a device and [`precompile_for_arch`](KernelDef::precompile_for_arch) for a named
/// architecture compile every signature of [`signatures`](KernelDef::signatures) into the
/// disk cache; [`cubin`](KernelDef::cubin) and [`ptx`](KernelDef::ptx) give one signature's
/// machine code and PTX. An architecture is NVRTC's `sm_XY` name, including the
/// architecture-specific targets such as `sm_90a` (whose code runs on that exact
/// architecture only).
impl KernelDef {
    /// The CUBIN of the `dtypes` specialisation for `arch` (such as `sm_90`), compiled with
    /// NVRTC through the disk cache: the module a first launch loads, with the kernel's
    /// main entry (a kernel with a fast path compiles its checked entry into a module of
    /// its own when a launch first needs it; [`precompile_for_arch`](Self::precompile_for_arch)
    /// compiles both). Needs no GPU, so a CPU-only machine can check kernels. Where NVRTC
    /// is absent and the cache holds only PTX for the signature, that is
    /// [`GpuError::NvrtcNotFound`] (a launch would hand the PTX to the driver's JIT).
    pub fn cubin(&self, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>, GpuError> {
        let image = compile_main(self, dtypes, arch)?;
        if image.starts_with(b"\x7fELF") {
            Ok(image)
        } else {
            Err(GpuError::NvrtcNotFound {
                detail: format!(
                    "`{}` has no CUBIN for {arch} in the kernel cache, only PTX (which a launch \
                     hands to the driver's JIT), and NVRTC, which would compile one, was not found",
                    self.signature(dtypes)
                ),
                searched: Vec::new(),
            })
        }
    }

    /// The module of the `dtypes` specialisation's checked entry for `arch`, through the
    /// disk cache (for a kernel with a fast path, when a launch fails its conditions).
    pub(crate) fn compile_checked_for_arch(
        &self,
        dtypes: &[DtypeKind],
        arch: &str,
    ) -> Result<Vec<u8>, GpuError> {
        compile_cached(self, dtypes, arch, Unit::Checked)
    }

    /// The whole specialisation (both entries of a kernel with a fast path), always
    /// running NVRTC: the disk cache is neither read nor written. For the test suite's
    /// checks that NVRTC accepts the source, and for benchmarks; not a public API.
    #[doc(hidden)]
    pub fn compile_uncached(&self, dtypes: &[DtypeKind], arch: &str) -> Result<Vec<u8>, GpuError> {
        compile_uncached(self, dtypes, arch)
    }

    /// The PTX of the `dtypes` specialisation for the virtual architecture of `arch`
    /// (`sm_90` gives `compute_90` PTX).
    pub fn ptx(&self, dtypes: &[DtypeKind], arch: &str) -> Result<String, GpuError> {
        compile_ptx(self, dtypes, arch)
    }

    /// Compile every [`signatures`](Self::signatures) entry for
    /// `arch` into the disk cache, with no GPU needed: a CUBIN and the PTX kept beside it
    /// (written where it is missing, also when the CUBIN was there), for a cache to ship.
    /// Needs NVRTC, and says so where it is absent.
    pub fn precompile_for_arch(&self, arch: &str) -> Result<(), GpuError> {
        for sig in self.signatures() {
            precompile_cached(self, &sig, arch)?;
        }
        Ok(())
    }
}

/// Once per process, on another thread while the first context is made (a few hundred
/// milliseconds): find NVRTC's file (its identity, which a cache hit checks; NVRTC is not
/// loaded), open the disk cache and run its lookup once, so a first launch from a warm
/// cache pays for neither a dozen directory reads nor code paged in for the first time.
/// Device creation only spawns the thread (the CUDA backend calls this once the driver
/// and the device are there).
pub(crate) fn prefetch() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("gpu-runtime prefetch".into())
            .spawn(|| {
                let _ = nvrtc_identity();
                warm_up();
            });
        if let Err(e) = spawned {
            log::debug!("no prefetch thread ({e}): the first launch finds NVRTC itself");
        }
    });
}

/// Run the cache-hit path's code once on made-up inputs (a prelude, a key, a lookup that
/// misses), from the thread that prefetches while a device is created: a first launch
/// from a warm cache then finds that code and its data paged in.
fn warm_up() {
    let source = prelude::prelude_for(&["gt_note"]);
    let options = KernelOptions::default().nvrtc_flags();
    let key = CacheKey::of(&CacheInputs {
        source: &source,
        options: &options,
        arch: "warm-up",
        crate_version: CRATE_VERSION,
        headers: "",
    });
    if let Some(cache) = DiskCache::from_env() {
        let _ = cache.load(&key);
    }
}

/// [`compile_cached`] for a cache to ship, for every unit a launch may load (the main
/// entry and, with a fast path, the checked one): NVRTC must be present, and each unit's
/// PTX entry for `arch` is written too where it is missing (a cache filled before PTX was
/// kept, or whose PTX entry was pruned or damaged).
pub(crate) fn precompile_cached(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
) -> Result<(), GpuError> {
    let compiled_by = nvrtc_identity()?;
    let units: &[Unit] = if def.has_fast_path() {
        &[Unit::Main, Unit::Checked]
    } else {
        &[Unit::Main]
    };
    for &unit in units {
        let job = Job::new(def, dtypes, arch, unit)?;
        job.compile()?;
        let Some(cache) = job.cache else {
            continue;
        };
        if number(arch).is_none() || matches!(cache.load(&job.ptx_key(arch)), Lookup::Hit(_)) {
            continue;
        }
        let ptx = job
            .run_nvrtc(arch, &[Output::Ptx])?
            .pop()
            .unwrap_or_default();
        job.store_ptx(&compiled_by, &ptx);
    }
    Ok(())
}

/// One kernel signature's compilation for one architecture, and its cache entries.
struct Job<'a> {
    def: &'a KernelDef,
    dtypes: &'a [DtypeKind],
    source: String,
    options: Vec<String>,
    signature: String,
    arch: String,
    unit: Unit,
    cache: Option<&'static DiskCache>,
    /// The SHA-256 of a raw module's headers as read now (empty when it has none).
    headers_digest: String,
}

impl<'a> Job<'a> {
    fn new(
        def: &'a KernelDef,
        dtypes: &'a [DtypeKind],
        arch: &str,
        unit: Unit,
    ) -> Result<Job<'a>, GpuError> {
        // A real architecture: also keeps the key space of CUBINs apart from PTX entries.
        if !arch.starts_with("sm_") {
            return Err(GpuError::InvalidArgument(format!(
                "`{arch}` is not a real GPU architecture (write one such as `sm_90`)"
            )));
        }
        let source = def.specialize_unit(dtypes, unit)?;
        let options = nvrtc_options(def);
        let headers_digest = match def.headers() {
            Some(h) => headers::snapshot(h)?.digest,
            None => String::new(),
        };
        Ok(Job {
            def,
            dtypes,
            signature: def.signature(dtypes),
            arch: arch.to_owned(),
            unit,
            source,
            options,
            cache: DiskCache::from_env(),
            headers_digest,
        })
    }

    /// The key of the entry for `arch`: a CUBIN for `sm_90`, PTX for `ptx:sm_90`.
    fn key(&self, arch: &str) -> CacheKey {
        CacheKey::of(&CacheInputs {
            source: &self.source,
            options: &self.options,
            arch,
            crate_version: CRATE_VERSION,
            headers: &self.headers_digest,
        })
    }

    /// Whether the module's headers read now as they did when the key was made: NVRTC reads
    /// them itself, so a header changed in between would file new code under the old
    /// headers' key (then the result is used, not kept).
    fn headers_unchanged(&self) -> bool {
        match self.def.headers() {
            None => true,
            Some(h) => {
                let same = headers::snapshot(h).is_ok_and(|s| s.digest == self.headers_digest);
                if !same {
                    log::warn!(
                        "the headers of `{}` changed while it compiled: not kept in the kernel \
                         cache",
                        self.signature
                    );
                }
                same
            }
        }
    }

    /// The key of the PTX entry for `target` (`sm_80`).
    fn ptx_key(&self, target: &str) -> CacheKey {
        self.key(&format!("ptx:{target}"))
    }

    fn run_nvrtc(&self, arch: &str, outputs: &[Output]) -> Result<Vec<Vec<u8>>, GpuError> {
        run_nvrtc(
            self.def,
            self.dtypes,
            arch,
            &self.source,
            &self.options,
            outputs,
        )
    }

    /// The kept PTX the driver can compile for the job's architecture, the newest such
    /// (closest to it), and its target; otherwise why there is none.
    fn cached_ptx(&self) -> Result<(Vec<u8>, String), String> {
        let cache = self.cache.ok_or("no kernel cache")?;
        let arch = self.arch.as_str();
        let Some(newest) = number(arch) else {
            return Err(format!("no PTX either: {arch} runs only its own CUBIN"));
        };
        let mut rejected = Vec::new();
        for n in (10..=newest).rev() {
            let target = format!("sm_{n}");
            match cache.load(&self.ptx_key(&target)) {
                Lookup::Hit(entry) => match split_entry(&entry) {
                    Some((_, ptx))
                        if ptx.ends_with(b"\0") && ptx_target(ptx) == Some(target.as_str()) =>
                    {
                        return Ok((ptx.to_vec(), target));
                    }
                    _ => rejected.push(format!("the {target} PTX entry is malformed")),
                },
                Lookup::Miss => {}
                Lookup::Rejected(why) => rejected.push(format!("the {target} PTX entry: {why}")),
            }
        }
        Err(if rejected.is_empty() {
            format!("no PTX of it for {arch} or an older architecture either")
        } else {
            rejected.join("; ")
        })
    }

    /// Keep `ptx` (NUL-terminated, from a compilation for a real architecture) as the
    /// signature's PTX entry for its target; architecture-specific PTX (`sm_90a`), which
    /// runs on that architecture alone, is not kept.
    fn store_ptx(&self, compiled_by: &str, ptx: &[u8]) {
        let Some(cache) = self.cache else {
            return;
        };
        let Some(target) = ptx_target(ptx).filter(|t| number(t).is_some()) else {
            return;
        };
        if !ptx.ends_with(b"\0") {
            log::warn!("NVRTC's PTX is not NUL-terminated: not kept in the kernel cache");
            return;
        }
        // SAFETY: the entry's PTX is what NVRTC compiled from the inputs of the key, for
        // the target the key names, NUL-terminated as the driver reads it.
        unsafe { cache.store(&self.ptx_key(target), &entry(compiled_by, ptx)) };
    }
}

/// The CUBIN of a cache entry, if there is one this process may use.
fn cached_cubin(cache: &DiskCache, key: &CacheKey, signature: &str, arch: &str) -> Option<Vec<u8>> {
    match cache.load(key) {
        Lookup::Hit(entry) => match split_entry(&entry) {
            Some((compiled_by, cubin)) => match nvrtc_identity() {
                Ok(here) if here != compiled_by => log::info!(
                    "kernel cache entry for {signature} for {arch} was compiled by NVRTC \
                     {compiled_by}, and this is {here}: compiling it again"
                ),
                Ok(_) => {
                    log::debug!("kernel cache hit: {signature} for {arch} ({key:?})");
                    return Some(cubin.to_vec());
                }
                Err(_) => {
                    log::info!(
                        "kernel cache hit without NVRTC: {signature} for {arch}, compiled by \
                         NVRTC {compiled_by}"
                    );
                    return Some(cubin.to_vec());
                }
            },
            None => log::warn!(
                "kernel cache entry for {signature} ({key:?}) has no compiler record: \
                 compiling it again"
            ),
        },
        Lookup::Miss => log::debug!("kernel cache miss: {signature} for {arch} ({key:?})"),
        Lookup::Rejected(why) => {
            log::warn!("kernel cache entry for {signature} ({key:?}) rejected and removed: {why}")
        }
    }
    None
}

/// The architecture of a PTX text's `.target` directive (`sm_90`).
fn ptx_target(ptx: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(ptx.strip_suffix(b"\0").unwrap_or(ptx)).ok()?;
    text.lines()
        .find_map(|line| line.trim().strip_prefix(".target "))
        .and_then(|rest| rest.split([',', ' ']).next())
        .filter(|t| !t.is_empty())
}

/// The number of an architecture without a suffix (`sm_90` is 90; `sm_90a` none): the
/// PTX of such a target runs on it and every newer one, through the driver's JIT.
fn number(arch: &str) -> Option<u32> {
    arch.strip_prefix("sm_")?.parse().ok()
}

/// A cache entry's payload: the identity of the NVRTC that compiled it (length-prefixed),
/// then the CUBIN (or, for a PTX entry, the NUL-terminated PTX).
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
    let options = nvrtc_options(def);
    let mut images = run_nvrtc(def, dtypes, arch, &source, &options, &[Output::Cubin])?;
    Ok(images.pop().unwrap_or_default())
}

/// The PTX of `def` for `dtypes`, for the virtual architecture of `arch`.
pub(crate) fn compile_ptx(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
) -> Result<String, GpuError> {
    let source = def.specialize(dtypes)?;
    let options = nvrtc_options(def);
    let virtual_arch = arch.replacen("sm_", "compute_", 1);
    let mut images = run_nvrtc(
        def,
        dtypes,
        &virtual_arch,
        &source,
        &options,
        &[Output::Ptx],
    )?;
    let ptx = images.pop().unwrap_or_default();
    Ok(String::from_utf8_lossy(&ptx)
        .trim_end_matches('\0')
        .to_owned())
}

/// The NVRTC options of `def`: its kernel options' flags, and a raw module's include
/// directories (`--include-path`).
fn nvrtc_options(def: &KernelDef) -> Vec<String> {
    let mut options = def.options().nvrtc_flags();
    if let Some(h) = def.headers() {
        options.extend(
            h.dirs()
                .iter()
                .map(|d| format!("--include-path={}", d.display())),
        );
    }
    options
}

/// A raw module's named headers, as NVRTC takes them.
fn named_headers(def: &KernelDef) -> &[(String, String)] {
    def.headers().map_or(&[], |h| h.named())
}

fn run_nvrtc(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
    source: &str,
    options: &[String],
    outputs: &[Output],
) -> Result<Vec<Vec<u8>>, GpuError> {
    let options: Vec<&str> = options.iter().map(String::as_str).collect();
    compile_program(
        source,
        &format!("{}.cu", def.name()),
        arch,
        &options,
        named_headers(def),
        outputs,
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

/// Under [`DUMP_ENV`], `<kernel>-<dtypes>-<arch>.cu` and `.ptx`; a kernel's checked entry,
/// compiled apart, as `<kernel>-<dtypes>-<arch>-checked.cu`.
fn dump(
    def: &KernelDef,
    dtypes: &[DtypeKind],
    arch: &str,
    unit: Unit,
    source: &str,
    options: &[String],
) {
    let Some(dir) = std::env::var_os(DUMP_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
    else {
        return;
    };
    // Each instance of a kernel with const parameters apart: `tiled-f32-8-sm_90`.
    let names: Vec<String> = dtypes
        .iter()
        .map(|d| d.rust_name().to_owned())
        .chain(def.const_values().iter().map(|v| v.to_string()))
        .collect();
    let suffix = if unit == Unit::Checked {
        "-checked"
    } else {
        ""
    };
    let stem = format!("{}-{}-{arch}{suffix}", def.name(), names.join("_"));
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
        named_headers(def),
        &[Output::Ptx],
    ) {
        Ok(images) => images.iter().for_each(|ptx| write("ptx", ptx)),
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
    fn the_target_of_ptx_is_read_from_its_directive() {
        let ptx = b"//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n.target sm_90\n\
                    .address_size 64\n\0";
        assert_eq!(ptx_target(ptx), Some("sm_90"));
        assert_eq!(ptx_target(b".target sm_90a, debug\n"), Some("sm_90a"));
        assert_eq!(ptx_target(b".version 9.0\n"), None);
        assert_eq!(ptx_target(b".target \n"), None);
        assert_eq!(ptx_target(&[0xff, 0xfe]), None);
    }

    #[test]
    fn only_unsuffixed_architectures_have_a_number() {
        assert_eq!(number("sm_90"), Some(90));
        assert_eq!(number("sm_100"), Some(100));
        assert_eq!(number("sm_103"), Some(103));
        assert_eq!(number("sm_90a"), None);
        assert_eq!(number("sm_100f"), None);
        assert_eq!(number("compute_90"), None);
        assert_eq!(number("ptx"), None);
    }

    #[test]
    fn malformed_entries_are_not_split() {
        assert_eq!(split_entry(b""), None);
        assert_eq!(split_entry(b"\x05\x00\x00\x00abc"), None);
        assert_eq!(split_entry(&[0xff, 0xff, 0xff, 0xff, 1, 2]), None);
        assert_eq!(split_entry(b"\x02\x00\x00\x00\xff\xfe"), None);
    }
}
