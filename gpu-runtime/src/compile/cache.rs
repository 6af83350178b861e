//! The on-disk cache of compiled kernels.
//!
//! Contract: an entry is loaded only if it is exactly what NVRTC produced for exactly these
//! inputs. The key hashes what determines the machine code apart from the compiler: the
//! specialised source (with its `#line` directives), the NVRTC options, the target
//! architecture and this crate's version, so an edited kernel never loads an old binary.
//! The compiler's identity is recorded in the entry by its user (`compile/mod.rs`), which
//! compiles again where another NVRTC is present and uses the entry where none is (a
//! program shipped with a warm cache). Each entry carries its key and a hash of its
//! payload; an entry that is truncated, altered or written for another key is removed and
//! recompiled, never loaded. Entries are written to a temporary file and renamed into
//! place, so several processes can fill one cache at once and a reader sees a whole entry
//! or none. The folder is kept under a size limit by removing the least recently used
//! entries (a hit refreshes an entry's modification time).
//!
//! Environment: `GPU_RUNTIME_CACHE=0` turns the cache off, `GPU_RUNTIME_CACHE_DIR` moves it
//! (default: the platform's user cache folder, `~/.cache/gpu-runtime` on Linux), and
//! `GPU_RUNTIME_CACHE_MAX_MB` sets the size limit (default 512).

use std::fmt;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::env::{CACHE_DIR_ENV, CACHE_ENV, CACHE_MAX_MB_ENV};

const DEFAULT_MAX_MB: u64 = 512;
const MAGIC: &[u8; 8] = b"GPURTCB1";
const HEADER_LEN: usize = 8 + 32 + 8 + 32;
const ENTRY_SUFFIX: &str = ".cubin";

/// What determines a compiled kernel's machine code, hashed into its cache key.
#[derive(Clone, Debug)]
pub struct CacheInputs<'a> {
    /// The complete specialised CUDA source.
    pub source: &'a str,
    /// The NVRTC options, in order.
    pub options: &'a [String],
    /// The target architecture, such as `sm_90`.
    pub arch: &'a str,
    /// This crate's version.
    pub crate_version: &'a str,
    /// The digest of the headers a raw module includes (every named header and every file
    /// under its include directories); empty for a module without any.
    pub headers: &'a str,
}

/// A cache key: the SHA-256 of every [`CacheInputs`] field, each length-prefixed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CacheKey(pub [u8; 32]);

impl CacheKey {
    /// The key of `inputs`.
    pub fn of(inputs: &CacheInputs<'_>) -> CacheKey {
        let mut h = Sha256::new();
        h.update(b"gpu-runtime cache key v2");
        let mut field = |bytes: &[u8]| {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(inputs.crate_version.as_bytes());
        field(inputs.arch.as_bytes());
        field(&(inputs.options.len() as u64).to_le_bytes());
        for o in inputs.options {
            field(o.as_bytes());
        }
        field(inputs.source.as_bytes());
        // Only where there are headers, so the keys of everything else stay as they were.
        if !inputs.headers.is_empty() {
            field(b"headers");
            field(inputs.headers.as_bytes());
        }
        CacheKey(h.finalize().into())
    }

    fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CacheKey({})", &self.hex()[..16])
    }
}

/// Why a cache folder cannot be used.
#[derive(Debug)]
pub struct CacheUnavailable {
    /// The folder.
    pub dir: PathBuf,
    /// What went wrong.
    pub reason: String,
}

impl fmt::Display for CacheUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel cache folder {} is unusable: {}",
            self.dir.display(),
            self.reason
        )
    }
}

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// A valid entry.
    Hit(Vec<u8>),
    /// No entry.
    Miss,
    /// An entry that failed verification; it has been removed.
    Rejected(String),
}

/// A cache folder with a size limit.
///
/// Stores keep an estimate of the folder's size (what the last scan found, plus what this
/// process wrote since), and scan the folder to prune only when the estimate passes the
/// limit: a store costs no listing of the folder, however many entries it holds. Entries
/// other processes write are counted at the next scan, so a folder shared by several
/// processes can pass the limit by what they wrote since, until then.
#[derive(Debug)]
pub struct DiskCache {
    dir: PathBuf,
    max_bytes: u64,
    /// The folder's estimated size in bytes; `u64::MAX` before the first scan.
    estimate: AtomicU64,
    /// How many times the folder was scanned (for tests).
    scans: AtomicU64,
    /// Whether the folder can be read but not written (a cache shipped read-only): then
    /// entries are loaded, never stored or pruned. Found by a probe write at the first
    /// store (or [`DiskCache::is_read_only`]), so a process that only loads entries, as
    /// a first launch from a warm cache does, never writes a probe.
    read_only: OnceLock<bool>,
}

/// `path` opened for reading if it is a regular file; anything else (a named pipe, a
/// socket, a device, a folder) is an error, never a wait: the file is opened without
/// blocking and its type checked through the handle, so a pipe put there between a check
/// and the open cannot block either.
fn open_regular(path: &Path) -> std::io::Result<fs::File> {
    let mut options = fs::File::options();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (skipped; the kernel compiles as on a miss)",
        ));
    }
    Ok(file)
}

impl DiskCache {
    /// Open (creating it if needed) the cache folder `dir`, which must be readable. A folder
    /// that can be read but not written is used read-only: its entries are loaded and
    /// nothing is written (found by a probe write at the first store, so opening and
    /// loading write nothing).
    pub fn open(dir: impl Into<PathBuf>, max_bytes: u64) -> Result<DiskCache, CacheUnavailable> {
        let dir = dir.into();
        let fail = |reason: String| CacheUnavailable {
            dir: dir.clone(),
            reason,
        };
        fs::create_dir_all(&dir).map_err(|e| fail(format!("cannot create it: {e}")))?;
        fs::read_dir(&dir).map_err(|e| fail(format!("cannot read it: {e}")))?;
        Ok(DiskCache {
            dir,
            max_bytes,
            estimate: AtomicU64::new(u64::MAX),
            scans: AtomicU64::new(0),
            read_only: OnceLock::new(),
        })
    }

    /// Whether the folder takes no new files: a probe write, made once.
    fn probe_read_only(&self) -> bool {
        *self.read_only.get_or_init(|| {
            // A probe write proves the folder accepts new files (read-only folders, full
            // disks); one that only reads is a cache shipped read-only, used as it is.
            match tempfile::NamedTempFile::new_in(&self.dir) {
                Ok(probe) => {
                    drop(probe);
                    false
                }
                Err(e) => {
                    log::info!(
                        "kernel cache {} is read-only ({e}): its entries are used, new kernels \
                         are kept in memory",
                        self.dir.display()
                    );
                    true
                }
            }
        })
    }

    /// Whether the folder is known to be read-only (no probe is made for this).
    fn known_read_only(&self) -> bool {
        self.read_only.get() == Some(&true)
    }

    /// The cache the environment asks for, or `None` when it is off or unusable. An
    /// unusable folder is reported once per process, as a warning through `log`.
    pub fn from_env() -> Option<&'static DiskCache> {
        static CACHE: OnceLock<Option<DiskCache>> = OnceLock::new();
        CACHE
            .get_or_init(|| {
                let off = std::env::var(CACHE_ENV)
                    .map(|v| matches!(v.trim(), "0" | "false" | "off" | "no"))
                    .unwrap_or(false);
                if off {
                    log::debug!("kernel disk cache off ({CACHE_ENV})");
                    return None;
                }
                let dir = match std::env::var_os(CACHE_DIR_ENV).filter(|d| !d.is_empty()) {
                    Some(d) => PathBuf::from(d),
                    None => dirs::cache_dir()?.join("gpu-runtime"),
                };
                // At most 1 TB: a bound no real cache reaches, so the bytes cannot overflow.
                let max_bytes = crate::env::megabytes(CACHE_MAX_MB_ENV, DEFAULT_MAX_MB, 1 << 20);
                match DiskCache::open(&dir, max_bytes) {
                    Ok(c) => Some(c),
                    Err(e) => {
                        log::warn!("{e}; compiled kernels are kept in memory only");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// Whether the folder is only read (see [`DiskCache::open`]).
    pub fn is_read_only(&self) -> bool {
        self.probe_read_only()
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, key: &CacheKey) -> PathBuf {
        self.dir.join(format!("{}{ENTRY_SUFFIX}", key.hex()))
    }

    /// Look `key` up; a hit is verified and refreshed, a bad entry removed.
    pub fn load(&self, key: &CacheKey) -> Lookup {
        let path = self.path_of(key);
        let mut bytes = Vec::new();
        let file = match open_regular(&path).and_then(|mut f| {
            f.read_to_end(&mut bytes)?;
            Ok(f)
        }) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::Miss,
            Err(e) => return Lookup::Rejected(format!("unreadable: {e}")),
        };
        match verify(key, &bytes) {
            Ok(()) => {
                // Refresh the entry's age for least-recently-used pruning, through the
                // handle just read when the process owns the file (one call), else through
                // a handle for writing; best effort (in a read-only folder not yet known as
                // such, both fail).
                if !self.known_read_only() && file.set_modified(SystemTime::now()).is_err() {
                    if let Ok(f) = fs::File::options().append(true).open(&path) {
                        let _ = f.set_modified(SystemTime::now());
                    }
                }
                bytes.drain(..HEADER_LEN);
                Lookup::Hit(bytes)
            }
            Err(why) => {
                if !self.known_read_only() {
                    let _ = fs::remove_file(&path);
                }
                Lookup::Rejected(why)
            }
        }
    }

    /// Store `payload` under `key`, atomically, then prune past the size limit. Failures
    /// are logged and otherwise ignored: the cache is an optimisation.
    ///
    /// # Safety
    ///
    /// `payload` must be what the runtime's compile path makes of the inputs `key` was made
    /// from (the identity of the NVRTC that compiled it, length-prefixed, then the CUBIN, or the PTX for a `ptx:sm_XX` key):
    /// a later launch of that kernel (in any process using this folder) loads and runs it
    /// as that kernel, trusting it to be the translation. Whoever can write the folder
    /// chooses code the GPU runs: point the cache only at folders you trust.
    pub unsafe fn store(&self, key: &CacheKey, payload: &[u8]) {
        if self.probe_read_only() {
            return;
        }
        if let Err(e) = self.try_store(key, payload) {
            log::warn!(
                "could not write kernel cache entry in {}: {e}",
                self.dir.display()
            );
            return;
        }
        let entry = (HEADER_LEN + payload.len()) as u64;
        let estimate = self
            .estimate
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |e| {
                Some(e.saturating_add(entry))
            })
            .map_or(u64::MAX, |e| e.saturating_add(entry));
        if estimate > self.max_bytes {
            self.prune();
        }
    }

    fn try_store(&self, key: &CacheKey, payload: &[u8]) -> std::io::Result<()> {
        let mut tmp = tempfile::Builder::new()
            .prefix(".tmp-")
            .tempfile_in(&self.dir)?;
        tmp.write_all(MAGIC)?;
        tmp.write_all(&key.0)?;
        tmp.write_all(&(payload.len() as u64).to_le_bytes())?;
        tmp.write_all(&Sha256::digest(payload))?;
        tmp.write_all(payload)?;
        // No fsync before the rename: an entry torn by a crash fails its hash and is
        // compiled again, so durability would buy nothing but milliseconds on a first launch.
        // Readable by every user of a shared cache folder (temporary files start private).
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            tmp.as_file()
                .set_permissions(fs::Permissions::from_mode(0o644))?;
        }
        tmp.persist(self.path_of(key)).map_err(|e| e.error)?;
        Ok(())
    }

    /// Remove the least recently used entries until the folder is under its limit, and
    /// temporary files an interrupted writer left behind more than an hour ago.
    pub fn prune(&self) {
        self.scans.fetch_add(1, Ordering::Relaxed);
        let Ok(entries) = fs::read_dir(&self.dir) else {
            return;
        };
        let entries: Vec<fs::DirEntry> = entries.flatten().collect();
        for e in &entries {
            let stale = e.file_name().to_string_lossy().starts_with(".tmp-")
                && e.metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 3600);
            if stale {
                let _ = fs::remove_file(e.path());
            }
        }
        let mut files: Vec<(SystemTime, u64, PathBuf)> = entries
            .into_iter()
            .filter(|e| e.file_name().to_string_lossy().ends_with(ENTRY_SUFFIX))
            .filter_map(|e| {
                let m = e.metadata().ok()?;
                Some((m.modified().ok()?, m.len(), e.path()))
            })
            .collect();
        let mut total: u64 = files.iter().map(|f| f.1).sum();
        if total <= self.max_bytes {
            self.estimate.store(total, Ordering::Relaxed);
            return;
        }
        files.sort_by_key(|f| f.0);
        for (_, len, path) in files {
            if total <= self.max_bytes {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                log::info!("kernel cache: evicted {}", path.display());
                total -= len;
            }
        }
        self.estimate.store(total, Ordering::Relaxed);
    }

    /// How many times this handle has listed the folder to prune it (what stores cost
    /// beyond writing their entry).
    pub fn scans(&self) -> u64 {
        self.scans.load(Ordering::Relaxed)
    }
}

fn verify(key: &CacheKey, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() < HEADER_LEN {
        return Err(format!("truncated ({} bytes)", bytes.len()));
    }
    if &bytes[..8] != MAGIC {
        return Err("not a gpu-runtime cache entry".to_owned());
    }
    if bytes[8..40] != key.0 {
        return Err("written for another key".to_owned());
    }
    let len = u64::from_le_bytes(bytes[40..48].try_into().expect("8 bytes")) as usize;
    let payload = &bytes[HEADER_LEN..];
    if payload.len() != len {
        return Err(format!(
            "payload is {} bytes, header says {len}",
            payload.len()
        ));
    }
    if Sha256::digest(payload).as_slice() != &bytes[48..80] {
        return Err("payload hash mismatch".to_owned());
    }
    Ok(())
}
