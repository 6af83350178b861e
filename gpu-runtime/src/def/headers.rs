//! The headers a raw module's CUDA C may `#include`: directories searched for
//! `#include "name"` (NVRTC's `--include-path`) and headers given by name with their text.
//! Reading the directories, for the disk-cache key, is `compile/headers.rs`'s.

use std::path::PathBuf;

/// Include directories and named headers of a [`RawModule`](crate::raw::RawModule).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Headers {
    /// Directories NVRTC searches, in order, as given (made absolute).
    pub(crate) dirs: Vec<PathBuf>,
    /// Headers by the name an `#include` gives, with their text, in the order given.
    pub(crate) named: Vec<(String, String)>,
}

impl Headers {
    /// Whether there are none: no directory and no named header.
    pub(crate) fn is_empty(&self) -> bool {
        self.dirs.is_empty() && self.named.is_empty()
    }

    /// The directories, in the order NVRTC searches them.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The named headers, as `(name, text)`.
    pub fn named(&self) -> &[(String, String)] {
        &self.named
    }
}
