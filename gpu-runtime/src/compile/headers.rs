//! What a raw module's include directories hold when it is compiled: every regular file
//! under each directory (through symbolic links), read for the disk-cache key, so a changed
//! header (or a new one) compiles the module again instead of loading the code of the old
//! one. Files outside the directories that a header reaches (`#include "../x.cuh"`, an
//! absolute path) are not part of the key: keep every header a module includes under its
//! directories. A header that changes while NVRTC compiles leaves nothing in the cache.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::def::headers::Headers;
use crate::error::GpuError;

/// The most files the include directories of one module may hold together.
pub(crate) const MAX_FILES: usize = 4096;
/// The most bytes those files may hold together.
pub(crate) const MAX_BYTES: u64 = 64 << 20;

/// The headers as a compilation sees them.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// The SHA-256, in hex, of every named header and every file under the directories,
    /// each with its name (its path below its directory): a part of the cache key.
    pub digest: String,
    /// Each file under the directories, as (path, text), directories in order, paths
    /// sorted (for finding a kernel's declaration in them).
    pub files: Vec<(PathBuf, String)>,
}

/// Read `headers`' directories now.
pub(crate) fn snapshot(headers: &Headers) -> Result<Snapshot, GpuError> {
    let mut h = Sha256::new();
    let mut field = |bytes: &[u8]| {
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(bytes);
    };
    field(b"named");
    for (name, text) in &headers.named {
        field(name.as_bytes());
        field(text.as_bytes());
    }
    let mut files = Vec::new();
    let mut budget = Budget::default();
    for dir in &headers.dirs {
        field(b"dir");
        field(dir.as_os_str().as_encoded_bytes());
        let mut found = Vec::new();
        let mut seen = Vec::new();
        walk(dir, dir, &mut found, &mut budget, &mut seen)?;
        found.sort();
        for (relative, path) in found {
            let bytes = read_within(&path, MAX_BYTES.saturating_sub(budget.bytes))?;
            budget.bytes += bytes.len() as u64;
            budget.check(dir)?;
            field(relative.as_bytes());
            field(&bytes);
            files.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    let digest = h.finalize().iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    });
    Ok(Snapshot { digest, files })
}

/// What the directories have taken so far.
#[derive(Default)]
struct Budget {
    files: usize,
    bytes: u64,
}

impl Budget {
    fn check(&self, dir: &Path) -> Result<(), GpuError> {
        if self.files > MAX_FILES || self.bytes > MAX_BYTES {
            return Err(GpuError::InvalidArgument(format!(
                "the include directories (at `{}`) hold more than {MAX_FILES} files or {} MiB; \
                 every file under them is read for the kernel cache's key, so name a \
                 directory that holds the headers only",
                dir.display(),
                MAX_BYTES >> 20
            )));
        }
        Ok(())
    }
}

/// The bytes of the file at `path`, refused past `room` bytes without reading more.
fn read_within(path: &Path, room: u64) -> Result<Vec<u8>, GpuError> {
    use std::io::Read as _;
    let file = std::fs::File::open(path).map_err(|e| unreadable(path, &e))?;
    let mut bytes = Vec::new();
    file.take(room.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| unreadable(path, &e))?;
    Ok(bytes)
}

/// Each regular file under `at`, as (its path below `root` with `/` between parts, its
/// path). Symbolic links are followed, to files and to directories (as NVRTC follows
/// them), each directory walked once (`seen`, by its canonical path), so a link cycle ends.
fn walk(
    root: &Path,
    at: &Path,
    out: &mut Vec<(String, PathBuf)>,
    budget: &mut Budget,
    seen: &mut Vec<PathBuf>,
) -> Result<(), GpuError> {
    let canonical = std::fs::canonicalize(at).map_err(|e| unreadable(at, &e))?;
    if seen.contains(&canonical) {
        return Ok(());
    }
    seen.push(canonical);
    let entries = std::fs::read_dir(at).map_err(|e| unreadable(at, &e))?;
    for entry in entries {
        let entry = entry.map_err(|e| unreadable(at, &e))?;
        let path = entry.path();
        // The target's kind: a link to a directory is walked, to a file read.
        let Ok(meta) = std::fs::metadata(&path) else {
            continue; // a dangling link names nothing NVRTC could read
        };
        if meta.is_dir() {
            walk(root, &path, out, budget, seen)?;
            continue;
        }
        // A FIFO or a device is no header, and reading one could block.
        if !meta.is_file() {
            continue;
        }
        budget.files += 1;
        budget.check(root)?;
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.push((relative, path));
    }
    Ok(())
}

fn unreadable(path: &Path, e: &std::io::Error) -> GpuError {
    GpuError::InvalidArgument(format!(
        "the include directory entry `{}` cannot be read: {e}",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(dir: &Path) -> Headers {
        Headers {
            dirs: vec![dir.to_path_buf()],
            named: vec![("named.cuh".into(), "#define N 1\n".into())],
        }
    }

    #[test]
    fn the_digest_follows_every_file_and_named_header() {
        let dir = std::env::temp_dir().join(format!("gt-headers-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join("a.cuh"), "#define A 1\n").unwrap();
        std::fs::write(dir.join("sub/b.cuh"), "#define B 2\n").unwrap();
        let first = snapshot(&headers(&dir)).unwrap();
        assert_eq!(first.files.len(), 2, "{:?}", first.files);
        assert_eq!(snapshot(&headers(&dir)).unwrap().digest, first.digest);

        std::fs::write(dir.join("sub/b.cuh"), "#define B 3\n").unwrap();
        let changed = snapshot(&headers(&dir)).unwrap();
        assert_ne!(
            changed.digest, first.digest,
            "a changed file below the directory"
        );

        std::fs::write(dir.join("c.cuh"), "").unwrap();
        let added = snapshot(&headers(&dir)).unwrap();
        assert_ne!(added.digest, changed.digest, "a new, empty file");

        let mut other = headers(&dir);
        other.named[0].1 = "#define N 2\n".into();
        assert_ne!(
            snapshot(&other).unwrap().digest,
            added.digest,
            "a named header"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_it() {
        let dir = std::env::temp_dir().join("gt-headers-that-do-not-exist");
        let e = snapshot(&headers(&dir)).unwrap_err().to_string();
        assert!(e.contains("gt-headers-that-do-not-exist"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_a_directory_is_passed_over() {
        let dir = std::env::temp_dir().join(format!("gt-headers-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.cuh"), "x").unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.join("pipe"))
            .status();
        if !status.is_ok_and(|s| s.success()) {
            std::fs::remove_dir_all(&dir).unwrap();
            panic!("mkfifo is needed by this test");
        }
        let s = snapshot(&headers(&dir)).unwrap();
        assert_eq!(s.files.len(), 1, "{:?}", s.files);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A directory reached through a symbolic link is part of the digest (NVRTC follows
    /// the link), and a link back up the tree ends the walk instead of looping.
    #[cfg(unix)]
    #[test]
    fn linked_directories_are_followed_once() {
        let base = std::env::temp_dir().join(format!("gt-headers-link-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let (dir, vendor) = (base.join("include"), base.join("vendor"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&vendor).unwrap();
        std::fs::write(vendor.join("x.cuh"), "#define X 1\n").unwrap();
        std::os::unix::fs::symlink(&vendor, dir.join("lib")).unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("again")).unwrap();
        let before = snapshot(&headers(&dir)).unwrap();
        assert_eq!(before.files.len(), 1, "{:?}", before.files);
        std::fs::write(vendor.join("x.cuh"), "#define X 2\n").unwrap();
        let after = snapshot(&headers(&dir)).unwrap();
        assert_ne!(before.digest, after.digest);
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A file past the byte cap is refused without being read whole.
    #[test]
    fn a_file_past_the_cap_is_refused() {
        let dir = std::env::temp_dir().join(format!("gt-headers-big-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = std::fs::File::create(dir.join("data.bin")).unwrap();
        // Sparse: no disk is used for the hole.
        file.set_len(MAX_BYTES + 1).unwrap();
        let e = snapshot(&headers(&dir)).unwrap_err().to_string();
        assert!(e.contains("MiB"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
