//! The on-disk kernel cache: keys, verification, atomic fills from many processes,
//! eviction, unusable folders, and the compile path through it (with the real NVRTC).
//!
//! Tests that need their own process environment (the cache folder is read from the
//! environment once per process) re-run this test binary as a child with
//! `DISK_CACHE_CHILD=<role>` set, running the ignored `child_<role>` test; the parent
//! checks what the child did.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpu_runtime::cache::{CacheInputs, CacheKey, DiskCache, Lookup};
use gpu_runtime::prelude::*;
use gpu_runtime::DtypeKind;

const CHILD_ENV: &str = "DISK_CACHE_CHILD";

fn inputs<'a>(
    source: &'a str,
    options: &'a [String],
    arch: &'a str,
    version: &'a str,
) -> CacheInputs<'a> {
    CacheInputs {
        source,
        options,
        arch,
        crate_version: version,
    }
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// Every entry file in a cache folder.
fn all_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
        .collect();
    v.sort();
    v
}

/// The entries that hold a CUBIN (an ELF image), not the PTX kept beside it; for folders
/// of test payloads, every entry.
fn entries(dir: &Path) -> Vec<PathBuf> {
    all_entries(dir)
        .into_iter()
        .filter(|p| {
            let bytes = std::fs::read(p).unwrap();
            !bytes.windows(7).any(|w| w == b".target")
        })
        .collect()
}

/// A payload that depends on `seed` only, so any process can tell a right one.
fn payload(seed: u32, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

#[test]
fn the_key_changes_with_every_input() {
    let opts = vec!["--use_fast_math".to_owned()];
    let base = CacheKey::of(&inputs("src", &opts, "sm_90", "0.1.0"));
    let other_opts = vec!["--maxrregcount=32".to_owned()];
    let variants = [
        CacheKey::of(&inputs("src ", &opts, "sm_90", "0.1.0")),
        CacheKey::of(&inputs("src", &[], "sm_90", "0.1.0")),
        CacheKey::of(&inputs("src", &other_opts, "sm_90", "0.1.0")),
        CacheKey::of(&inputs("src", &opts, "sm_80", "0.1.0")),
        CacheKey::of(&inputs("src", &opts, "sm_90", "0.1.1")),
    ];
    for (i, v) in variants.iter().enumerate() {
        assert_ne!(*v, base, "variant {i} has the same key");
    }
    // Field boundaries matter: moving text between fields changes the key.
    let a = CacheKey::of(&inputs("src", &[], "sm_90", "v1"));
    let b = CacheKey::of(&inputs("src", &[], "1sm_90", "v"));
    assert_ne!(a, b);
    assert_eq!(base, CacheKey::of(&inputs("src", &opts, "sm_90", "0.1.0")));
}

#[test]
fn a_stored_entry_loads_back_exactly() {
    let dir = temp_dir();
    let cache = DiskCache::open(dir.path(), 1 << 30).unwrap();
    let key = CacheKey::of(&inputs("k", &[], "sm_90", "v"));
    assert_eq!(cache.load(&key), Lookup::Miss);
    let data = payload(7, 10_000);
    // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
    unsafe { cache.store(&key, &data) };
    assert_eq!(cache.load(&key), Lookup::Hit(data));
    // No temporary files are left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

fn damaged(damage: impl Fn(&mut Vec<u8>)) -> Lookup {
    let dir = temp_dir();
    let cache = DiskCache::open(dir.path(), 1 << 30).unwrap();
    let key = CacheKey::of(&inputs("k", &[], "sm_90", "v"));
    // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
    unsafe { cache.store(&key, &payload(3, 5_000)) };
    let path = entries(dir.path()).remove(0);
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, &bytes).unwrap();
    let first = cache.load(&key);
    // A rejected entry is removed, so the next lookup is a plain miss.
    if matches!(first, Lookup::Rejected(_)) {
        assert!(!path.exists(), "a rejected entry must be removed");
        assert_eq!(cache.load(&key), Lookup::Miss);
    }
    first
}

#[test]
fn truncated_entries_are_rejected() {
    for keep in [0usize, 10, 79, 80, 4_000] {
        let r = damaged(|b| b.truncate(keep));
        assert!(
            matches!(r, Lookup::Rejected(_)),
            "truncated to {keep}: {r:?}"
        );
    }
}

#[test]
fn flipped_bits_anywhere_are_rejected() {
    for at in [0usize, 9, 45, 60, 100, 3_000, 5_079] {
        let r = damaged(|b| b[at] ^= 0x10);
        assert!(
            matches!(r, Lookup::Rejected(_)),
            "bit flipped at {at}: {r:?}"
        );
    }
}

#[test]
fn an_entry_written_for_another_key_is_rejected() {
    let dir = temp_dir();
    let cache = DiskCache::open(dir.path(), 1 << 30).unwrap();
    let a = CacheKey::of(&inputs("a", &[], "sm_90", "v"));
    let b = CacheKey::of(&inputs("b", &[], "sm_90", "v"));
    // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
    unsafe { cache.store(&a, &payload(1, 1_000)) };
    let a_path = entries(dir.path()).remove(0);
    // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
    unsafe { cache.store(&b, &payload(2, 1_000)) };
    let b_path = entries(dir.path())
        .into_iter()
        .find(|p| *p != a_path)
        .unwrap();
    std::fs::copy(&a_path, &b_path).unwrap();
    match cache.load(&b) {
        Lookup::Rejected(why) => assert!(why.contains("another key"), "{why}"),
        other => panic!("a foreign entry was not rejected: {other:?}"),
    }
    std::fs::write(
        &a_path,
        b"not a cache entry at all, but long enough to have a header......................",
    )
    .unwrap();
    assert!(matches!(cache.load(&a), Lookup::Rejected(_)));
}

#[test]
fn a_file_where_the_folder_should_be_is_unusable() {
    let dir = temp_dir();
    let file = dir.path().join("cache");
    std::fs::write(&file, b"x").unwrap();
    let e = DiskCache::open(&file, 1 << 20).unwrap_err();
    assert!(e.to_string().contains("cannot create"), "{e}");
    let e = DiskCache::open(file.join("below"), 1 << 20).unwrap_err();
    assert!(e.to_string().contains("unusable"), "{e}");
}

#[test]
fn a_read_only_folder_is_used_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = temp_dir();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let key = CacheKey::of(&inputs("shipped", &[], "sm_90", "v"));
    let data = payload(11, 3_000);
    {
        let writable = DiskCache::open(&ro, 1 << 20).unwrap();
        // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
        unsafe { writable.store(&key, &data) };
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    // Root ignores permission bits; then a folder of a read-only file system stands in.
    let privileged = std::fs::write(ro.join("probe"), b"x").is_ok();
    if privileged {
        let _ = std::fs::remove_file(ro.join("probe"));
        let cache = DiskCache::open("/proc/sys", 1 << 20).unwrap();
        assert!(cache.is_read_only());
        assert_eq!(cache.load(&key), Lookup::Miss);
    } else {
        let cache = DiskCache::open(&ro, 1 << 20).unwrap();
        assert!(cache.is_read_only());
        assert_eq!(cache.load(&key), Lookup::Hit(data));
        let other = CacheKey::of(&inputs("new", &[], "sm_90", "v"));
        // SAFETY: as above.
        unsafe { cache.store(&other, &payload(12, 100)) };
        assert_eq!(entries(&ro).len(), 1, "a read-only cache stores nothing");
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn the_least_recently_used_entries_are_evicted_past_the_limit() {
    let dir = temp_dir();
    let entry = 10_000;
    let cache = DiskCache::open(dir.path(), 3 * entry as u64 + 500).unwrap();
    let keys: Vec<CacheKey> = (0..6)
        .map(|i| CacheKey::of(&inputs(&i.to_string(), &[], "sm_90", "v")))
        .collect();
    for (i, k) in keys.iter().take(3).enumerate() {
        // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
        unsafe { cache.store(k, &payload(i as u32, entry - 80)) };
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Touch the oldest: it becomes the most recent.
    assert!(matches!(cache.load(&keys[0]), Lookup::Hit(_)));
    std::thread::sleep(std::time::Duration::from_millis(20));
    // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
    unsafe { cache.store(&keys[3], &payload(3, entry - 80)) };
    let total: u64 = entries(dir.path())
        .iter()
        .map(|p| p.metadata().unwrap().len())
        .sum();
    assert!(total <= 3 * entry as u64 + 500, "total {total}");
    assert!(
        matches!(cache.load(&keys[0]), Lookup::Hit(_)),
        "the recently used entry was evicted"
    );
    assert_eq!(
        cache.load(&keys[1]),
        Lookup::Miss,
        "the least recently used entry survived"
    );
    assert!(matches!(cache.load(&keys[3]), Lookup::Hit(_)));
}

#[test]
fn stores_under_the_limit_do_not_list_the_folder_each_time() {
    let dir = temp_dir();
    let entry = 1_000;
    let cache = DiskCache::open(dir.path(), 2_000 * entry as u64).unwrap();
    for i in 0..1_000u32 {
        let k = CacheKey::of(&inputs(&i.to_string(), &[], "sm_90", "v"));
        // SAFETY: a test entry, never loaded as a kernel: the folder is this test's own.
        unsafe { cache.store(&k, &payload(i, entry - 80)) };
    }
    // One scan learns the folder's size; the rest are counted, not listed.
    assert_eq!(cache.scans(), 1);
    assert_eq!(entries(dir.path()).len(), 1_000);
    // Past the limit, stores scan and evict again.
    let small = DiskCache::open(dir.path(), 10 * entry as u64).unwrap();
    let k = CacheKey::of(&inputs("one more", &[], "sm_90", "v"));
    // SAFETY: as above.
    unsafe { small.store(&k, &payload(7, entry - 80)) };
    assert!(small.scans() >= 1);
    assert!(
        entries(dir.path()).len() <= 10,
        "{}",
        entries(dir.path()).len()
    );
}

fn run_children(role: &str, n: usize, envs: &[(&str, &Path)]) -> Vec<std::process::Output> {
    let exe = std::env::current_exe().unwrap();
    let test_name = format!("child_{role}");
    let children: Vec<_> = (0..n)
        .map(|i| {
            let mut c = Command::new(&exe);
            c.args([
                "--exact",
                &test_name,
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, role)
            .env("CHILD_INDEX", i.to_string())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
            for (k, v) in envs {
                c.env(k, v);
            }
            c.spawn().unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect()
}

fn is_child(role: &str) -> bool {
    std::env::var(CHILD_ENV).is_ok_and(|r| r == role)
}

#[test]
fn eight_processes_fill_one_cache_at_once_and_never_load_a_bad_entry() {
    let dir = temp_dir();
    let outputs = run_children("fill", 8, &[("FILL_DIR", dir.path())]);
    for o in &outputs {
        assert!(
            o.status.success(),
            "a child failed: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // Whatever is left is whole and right.
    let cache = DiskCache::open(dir.path(), 1 << 30).unwrap();
    for i in 0..40u32 {
        let key = CacheKey::of(&inputs(&format!("entry {i}"), &[], "sm_90", "v"));
        match cache.load(&key) {
            Lookup::Hit(p) => assert_eq!(p, payload(i, 20_000 + i as usize)),
            other => panic!("entry {i}: {other:?}"),
        }
    }
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_fill() {
    assert!(
        is_child("fill"),
        "run by its parent test, with {CHILD_ENV} set"
    );
    let dir = PathBuf::from(std::env::var_os("FILL_DIR").unwrap());
    let cache = DiskCache::open(&dir, 1 << 30).unwrap();
    let me: u32 = std::env::var("CHILD_INDEX").unwrap().parse().unwrap();
    for round in 0..3u32 {
        for j in 0..40u32 {
            let i = (j + me * 5 + round) % 40;
            let key = CacheKey::of(&inputs(&format!("entry {i}"), &[], "sm_90", "v"));
            match cache.load(&key) {
                Lookup::Hit(p) => {
                    assert_eq!(p, payload(i, 20_000 + i as usize), "bad load of entry {i}")
                }
                // SAFETY: a test entry, never loaded as a kernel: the folder is this test's.
                Lookup::Miss => unsafe { cache.store(&key, &payload(i, 20_000 + i as usize)) },
                Lookup::Rejected(why) => panic!("entry {i} rejected while others write it: {why}"),
            }
        }
    }
}

#[gpu_kernel]
fn cached_scale(a: &mut [f32], s: f32) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i] * s;
    }
}

/// The same kernel name with an edited body: its source, so its key, differs.
mod edited {
    use gpu_runtime::prelude::*;

    #[gpu_kernel]
    pub fn cached_scale(a: &mut [f32], s: f32) {
        let i = grid_1d();
        if i < a.len() {
            a[i] = a[i] * s + 1.0;
        }
    }
}

#[test]
fn the_compile_path_fills_uses_and_repairs_the_cache() {
    if !gpu_runtime::__private::nvrtc_or_skip("the_compile_path_fills_uses_and_repairs_the_cache")
        .expect("NVRTC")
    {
        return;
    }
    let dir = temp_dir();
    let outputs = run_children("compile", 1, &[("GPU_RUNTIME_CACHE_DIR", dir.path())]);
    let o = &outputs[0];
    assert!(
        o.status.success(),
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Collects `log` records, to check what the compile path reports.
struct Recorder(std::sync::Mutex<Vec<String>>);

impl log::Log for Recorder {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        self.0.lock().unwrap().push(record.args().to_string());
    }
    fn flush(&self) {}
}

static RECORDER: Recorder = Recorder(std::sync::Mutex::new(Vec::new()));

fn take_log() -> Vec<String> {
    std::mem::take(&mut *RECORDER.0.lock().unwrap())
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_compile() {
    assert!(
        is_child("compile"),
        "run by its parent test, with {CHILD_ENV} set"
    );
    log::set_logger(&RECORDER).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    let dir = PathBuf::from(std::env::var_os("GPU_RUNTIME_CACHE_DIR").unwrap());
    let def = cached_scale::definition();
    let first = def.compile_for_arch(&[], "sm_90").expect("compiles");
    let log = take_log();
    assert!(
        log.iter()
            .any(|m| m.starts_with("kernel cache miss: cached_scale for sm_90")),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|m| m.starts_with("compiled cached_scale for sm_90 in ")),
        "{log:?}"
    );
    let files = entries(&dir);
    assert_eq!(files.len(), 1, "one entry after one compile");
    let stamp = std::fs::read(&files[0]).unwrap();
    // A hit returns the stored CUBIN without rewriting the entry.
    assert_eq!(def.compile_for_arch(&[], "sm_90").unwrap(), first);
    assert_eq!(std::fs::read(&files[0]).unwrap(), stamp);
    let log = take_log();
    assert!(
        log.iter()
            .any(|m| m.starts_with("kernel cache hit: cached_scale for sm_90")),
        "{log:?}"
    );
    assert!(
        !log.iter().any(|m| m.starts_with("compiled")),
        "a hit must not compile: {log:?}"
    );
    // An edited kernel never loads the old binary: a new entry, a different CUBIN.
    let edited = edited::cached_scale::definition()
        .compile_for_arch(&[], "sm_90")
        .unwrap();
    assert_ne!(edited, first);
    assert_eq!(entries(&dir).len(), 2);
    // Another architecture is another entry; the PTX entry, one per kernel signature,
    // now holds the older architecture's PTX, which runs on both.
    let ptx_entries = |dir: &Path| {
        let cubins = entries(dir);
        all_entries(dir)
            .into_iter()
            .filter(|p| !cubins.contains(p))
            .collect::<Vec<_>>()
    };
    assert_eq!(ptx_entries(&dir).len(), 2, "one per kernel");
    def.compile_for_arch(&[], "sm_80").unwrap();
    assert_eq!(entries(&dir).len(), 3);
    assert_eq!(ptx_entries(&dir).len(), 2);
    let kept = |dir: &Path| {
        ptx_entries(dir)
            .iter()
            .map(|p| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned())
            .filter(|text| text.contains(".target sm_80"))
            .count()
    };
    assert_eq!(kept(&dir), 1, "cached_scale's PTX entry holds sm_80's PTX");
    // A newer architecture's compile leaves sm_80's PTX in place.
    def.compile_for_arch(&[], "sm_100").unwrap();
    assert_eq!(entries(&dir).len(), 4);
    assert_eq!(kept(&dir), 1, "sm_80's PTX is kept over sm_100's");
    // A damaged entry is recompiled and replaced.
    let mut bytes = std::fs::read(&files[0]).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&files[0], &bytes).unwrap();
    assert_eq!(def.compile_for_arch(&[], "sm_90").unwrap(), first);
    assert_eq!(
        std::fs::read(&files[0]).unwrap(),
        stamp,
        "the entry was not rewritten whole"
    );
    let log = take_log();
    assert!(
        log.iter()
            .any(|m| m.contains("rejected and removed: payload hash mismatch")),
        "{log:?}"
    );
}

#[test]
fn an_unusable_cache_folder_degrades_to_memory_with_one_warning() {
    if !gpu_runtime::__private::nvrtc_or_skip(
        "an_unusable_cache_folder_degrades_to_memory_with_one_warning",
    )
    .expect("NVRTC")
    {
        return;
    }
    let dir = temp_dir();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let outputs = run_children("unusable", 1, &[("GPU_RUNTIME_CACHE_DIR", &file)]);
    let o = &outputs[0];
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "child failed: {stderr}");
    // The child checks its own log; it prints the one warning it saw.
    assert_eq!(stderr.matches("kept in memory only").count(), 1, "{stderr}");
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_unusable() {
    assert!(
        is_child("unusable"),
        "run by its parent test, with {CHILD_ENV} set"
    );
    log::set_logger(&RECORDER).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    for _ in 0..3 {
        cached_scale::definition()
            .compile_for_arch(&[], "sm_90")
            .expect("compiles without a cache");
    }
    // The warning goes to the `log` facade (never straight to stderr), once.
    let warnings: Vec<String> = take_log()
        .into_iter()
        .filter(|m| m.contains("kept in memory only"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    eprintln!("{}", warnings[0]);
}

#[test]
fn precompile_for_arch_fills_a_cache_without_a_gpu() {
    if !gpu_runtime::__private::nvrtc_or_skip("precompile_for_arch_fills_a_cache_without_a_gpu")
        .expect("NVRTC")
    {
        return;
    }
    let dir = temp_dir();
    let outputs = run_children("precompile", 1, &[("GPU_RUNTIME_CACHE_DIR", dir.path())]);
    assert!(
        outputs[0].status.success(),
        "{}",
        String::from_utf8_lossy(&outputs[0].stderr)
    );
    // generic_add over Float: per float dtype (f32, f64, f16, bf16) a CUBIN entry and
    // the PTX entry kept beside it.
    assert_eq!(entries(dir.path()).len(), 4);
    assert_eq!(all_entries(dir.path()).len(), 8);
}

#[test]
fn a_warm_cache_serves_a_program_without_nvrtc() {
    if !gpu_runtime::__private::nvrtc_or_skip("a_warm_cache_serves_a_program_without_nvrtc")
        .expect("NVRTC")
    {
        return;
    }
    let dir = temp_dir();
    let filled = run_children("precompile", 1, &[("GPU_RUNTIME_CACHE_DIR", dir.path())]);
    assert!(
        filled[0].status.success(),
        "{}",
        String::from_utf8_lossy(&filled[0].stderr)
    );
    // The same program where NVRTC cannot be found.
    let missing = dir.path().join("no-such-folder/libnvrtc.so.13");
    let outputs = run_children(
        "no_nvrtc",
        1,
        &[
            ("GPU_RUNTIME_CACHE_DIR", dir.path()),
            ("GPU_RUNTIME_NVRTC", missing.as_path()),
        ],
    );
    assert!(
        outputs[0].status.success(),
        "{}{}",
        String::from_utf8_lossy(&outputs[0].stdout),
        String::from_utf8_lossy(&outputs[0].stderr)
    );
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_no_nvrtc() {
    assert!(
        is_child("no_nvrtc"),
        "run by its parent test, with {CHILD_ENV} set"
    );
    log::set_logger(&RECORDER).unwrap();
    log::set_max_level(log::LevelFilter::Trace);
    assert!(
        gpu_runtime::nvrtc_version().is_err(),
        "NVRTC must be missing here"
    );
    // Every signature the parent compiled comes from the cache.
    for sig in generic_add::definition().precompile_signatures() {
        let cubin = generic_add::definition()
            .compile_for_arch(&sig, "sm_90")
            .unwrap_or_else(|e| panic!("{sig:?} from the cache: {e}"));
        assert_eq!(&cubin[..4], b"\x7fELF", "{sig:?}: a CUBIN");
    }
    let log = take_log();
    assert_eq!(
        log.iter()
            .filter(|m| m.starts_with("kernel cache hit without NVRTC"))
            .count(),
        4,
        "{log:?}"
    );
    // A newer GPU gets the PTX kept beside each CUBIN, for the driver's JIT.
    for sig in generic_add::definition().precompile_signatures() {
        let ptx = generic_add::definition()
            .compile_for_arch(&sig, "sm_100")
            .unwrap_or_else(|e| panic!("{sig:?}: the PTX for a newer GPU: {e}"));
        let text = std::str::from_utf8(&ptx).expect("PTX is text");
        assert!(text.contains("\n.target sm_90"), "{sig:?}: {text}");
        assert!(
            text.ends_with('\0'),
            "{sig:?}: the driver loads NUL-terminated PTX"
        );
    }
    // An older GPU cannot run sm_90 PTX; without NVRTC that is an error saying why.
    match generic_add::definition().compile_for_arch(&[DtypeKind::F32], "sm_80") {
        Err(e @ GpuError::NvrtcNotFound { .. }) => {
            let text = e.to_string();
            assert!(text.contains("its PTX is for sm_90"), "{text}");
        }
        other => panic!("expected NvrtcNotFound, got {other:?}"),
    }
    // A kernel that is not in the cache needs NVRTC, and the error says so.
    match cached_scale::definition().compile_for_arch(&[], "sm_90") {
        Err(e @ GpuError::NvrtcNotFound { .. }) => {
            let text = e.to_string();
            assert!(text.contains("is not in the kernel cache"), "{text}");
            assert_eq!(
                text.matches("Install the CUDA toolkit").count(),
                1,
                "{text}"
            );
        }
        other => panic!("expected NvrtcNotFound, got {other:?}"),
    }
}

#[gpu_kernel]
fn generic_add<T: Float>(a: &[T], b: &mut [T]) {
    let i = grid_1d();
    if i < a.len() {
        b[i] = b[i] + a[i];
    }
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_precompile() {
    assert!(
        is_child("precompile"),
        "run by its parent test, with {CHILD_ENV} set"
    );
    generic_add::definition()
        .precompile_for_arch("sm_90")
        .unwrap();
    let sigs = generic_add::definition().precompile_signatures();
    assert_eq!(
        sigs,
        vec![
            vec![DtypeKind::F32],
            vec![DtypeKind::F64],
            vec![DtypeKind::F16],
            vec![DtypeKind::Bf16]
        ]
    );
}

#[test]
fn cache_off_writes_nothing_and_dump_writes_source_and_ptx() {
    if !gpu_runtime::__private::nvrtc_or_skip(
        "cache_off_writes_nothing_and_dump_writes_source_and_ptx",
    )
    .expect("NVRTC")
    {
        return;
    }
    let dir = temp_dir();
    let dump = temp_dir();
    let outputs = run_children(
        "off",
        1,
        &[
            ("GPU_RUNTIME_CACHE_DIR", dir.path()),
            ("GPU_RUNTIME_CACHE", Path::new("0")),
            ("GPU_RUNTIME_DUMP", dump.path()),
        ],
    );
    assert!(
        outputs[0].status.success(),
        "{}",
        String::from_utf8_lossy(&outputs[0].stderr)
    );
    assert!(
        entries(dir.path()).is_empty(),
        "GPU_RUNTIME_CACHE=0 wrote entries"
    );
    let cu = std::fs::read_to_string(dump.path().join("generic_add-f64-sm_90.cu"))
        .expect("dumped source");
    assert!(
        cu.contains("typedef double T;") && cu.contains("void generic_add("),
        "{cu}"
    );
    let ptx =
        std::fs::read_to_string(dump.path().join("generic_add-f64-sm_90.ptx")).expect("dumped PTX");
    assert!(
        ptx.contains(".entry generic_add") && ptx.contains(".target sm_90"),
        "{ptx}"
    );
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_off() {
    assert!(
        is_child("off"),
        "run by its parent test, with {CHILD_ENV} set"
    );
    generic_add::definition()
        .compile_for_arch(&[DtypeKind::F64], "sm_90")
        .unwrap();
}

#[test]
fn ptx_is_available_for_inspection() {
    if !gpu_runtime::__private::nvrtc_or_skip("ptx_is_available_for_inspection").expect("NVRTC") {
        return;
    }
    let ptx = generic_add::definition()
        .ptx(&[DtypeKind::F32], "sm_90")
        .unwrap();
    assert!(ptx.contains(".target sm_90"), "{ptx}");
    assert!(ptx.contains(".entry generic_add"), "{ptx}");
    assert!(ptx.contains("add.f32"), "f32 arithmetic expected: {ptx}");
    let ptx = generic_add::definition()
        .ptx(&[DtypeKind::F64], "sm_90")
        .unwrap();
    assert!(
        ptx.contains("add.f64") || ptx.contains("add.rn.f64"),
        "{ptx}"
    );
}
