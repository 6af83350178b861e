//! A module of raw CUDA C: its source, options and headers, and the kernels taken from it,
//! each checked against the C's parameter list.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::AtomicU32;
use std::sync::Mutex;

use super::c_decl::{c_parameters, CParam};
use super::{RawKernel, RawParams};
use crate::def::headers::Headers;
use crate::def::kernel::{KernelDef, KernelParts};
use crate::error::{GpuError, Result};
use gpu_contract::{KernelOptions, ParamDef};

/// CUDA C compiled once per device and architecture through NVRTC and the disk cache.
/// Holds one or more `extern "C" __global__` kernels; take each with
/// [`RawModule::kernel`].
///
/// Sources and kernel definitions are kept for the life of the process (they back the
/// same lookup tables as `#[gpu_kernel]`s, which allow 65,536 signatures in all): make
/// modules from fixed sources, once, rather than from text generated per call.
///
/// A source that includes headers of its own (`#include "add.cuh"`) names where they are:
/// [`include_dir`](Self::include_dir) for a directory NVRTC searches, and
/// [`header`](Self::header) for a header given with its text. Every file under the
/// directories is read for the disk cache's key when the module is compiled, so a changed
/// header compiles it again.
#[derive(Clone, Copy)]
pub struct RawModule {
    source: &'static str,
    options: KernelOptions,
    headers: &'static Headers,
}

impl fmt::Debug for RawModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RawModule({} bytes of CUDA C)", self.source.len())
    }
}

/// Definitions made for raw kernels, so the same source and name share one (and its
/// compiled functions) however often they are created.
/// Source, kernel name and options.
type DefinitionKey = (String, String, String);

static DEFINITIONS: Mutex<Option<HashMap<DefinitionKey, &'static KernelDef>>> = Mutex::new(None);

impl RawModule {
    /// A module of `source`. The source is kept for the rest of the process, as are the
    /// definitions of the kernels taken from it: make modules once, not per launch.
    pub fn new(source: &str) -> RawModule {
        RawModule {
            source: with_line_directive(source),
            options: KernelOptions::default(),
            headers: keep(Headers::default()),
        }
    }

    /// A module compiled with `options` (`fast_math`, `max_registers`, `line_info`,
    /// `debug`, `fmad`); `launch_bounds` is an error, since it applies to C the crate
    /// writes, not to yours (write `__launch_bounds__` in the source).
    pub fn with_options(source: &str, options: KernelOptions) -> Result<RawModule> {
        if options.launch_bounds.is_some() {
            return Err(GpuError::InvalidArgument(
                "`launch_bounds` applies to #[gpu_kernel] code, not to CUDA C written by hand \
                 (write __launch_bounds__ in the source)"
                    .to_owned(),
            ));
        }
        Ok(RawModule {
            source: with_line_directive(source),
            options,
            headers: keep(Headers::default()),
        })
    }

    /// The module with `dir` searched for the headers its source includes
    /// (`#include "add.cuh"`, NVRTC's `--include-path`), after the directories given
    /// before; a relative `dir` is taken from the current directory now. Every regular file
    /// under `dir` (at most 4096 files and 64 MiB in all) is read when the module is
    /// compiled, for the disk cache's key: name a directory that holds headers only.
    /// A `dir` that is not a directory is [`GpuError::InvalidArgument`].
    pub fn include_dir(self, dir: impl AsRef<std::path::Path>) -> Result<RawModule> {
        let dir = dir.as_ref();
        let absolute = std::fs::canonicalize(dir)
            .ok()
            .filter(|d| d.is_dir())
            .ok_or_else(|| {
                GpuError::InvalidArgument(format!(
                    "include directory `{}` is not a directory that can be read",
                    dir.display()
                ))
            })?;
        let mut headers = self.headers.clone();
        headers.dirs.push(absolute);
        Ok(RawModule {
            headers: keep(headers),
            ..self
        })
    }

    /// The module with a header `name` whose text is `text`: `#include "name"` in the
    /// source (or in another header) finds it before any directory is searched. Named
    /// headers are part of the disk cache's key.
    pub fn header(self, name: &str, text: &str) -> RawModule {
        let mut headers = self.headers.clone();
        headers.named.push((name.to_owned(), text.to_owned()));
        RawModule {
            headers: keep(headers),
            ..self
        }
    }

    /// The kernel `name`, with parameters `P`: checked against the C parameter list, so a
    /// missing `extern "C"`, a wrong count, a different dtype or a writable pointer
    /// declared read-only is an error here rather than wrong results later.
    ///
    /// # Safety
    ///
    /// The kernel NVRTC compiles takes exactly the parameters `P` declares (the check
    /// reads the declaration as written: it cannot see through `#if`, macros or typedefs),
    /// and writes only through its `PtrMut` parameters. What each launch passes is promised
    /// at the launch (`RawKernel::launch`).
    pub unsafe fn kernel<P: RawParams>(&self, name: &str) -> Result<RawKernel<P>> {
        let declared = P::params();
        let invalid =
            |why: String| GpuError::InvalidArgument(format!("raw kernel `{name}`: {why}"));
        let c = self.c_parameters(name).map_err(invalid)?;
        if c.len() != declared.len() {
            return Err(invalid(format!(
                "the CUDA source has {} parameter(s), the Rust signature declares {}",
                c.len(),
                declared.len()
            )));
        }
        for (k, (cp, d)) in c.iter().zip(&declared).enumerate() {
            if let Some(why) = (d.mismatch)(cp) {
                return Err(invalid(format!("parameter {} `{}` {why}", k + 1, cp.name)));
            }
        }
        let key = (
            self.source.to_owned(),
            name.to_owned(),
            format!("{:?} {:?}", self.options, self.headers),
        );
        let mut defs = DEFINITIONS.lock().unwrap_or_else(|p| p.into_inner());
        let def = *defs
            .get_or_insert_with(HashMap::new)
            .entry(key)
            .or_insert_with(|| {
                let params: Vec<ParamDef> = c
                    .iter()
                    .zip(&declared)
                    .enumerate()
                    .map(|(k, (cp, d))| ParamDef {
                        name: if cp.name.is_empty() {
                            intern(&format!("parameter {}", k + 1))
                        } else {
                            intern(&cp.name)
                        },
                        kind: d.kind,
                    })
                    .collect();
                let name = intern(name);
                let parts = KernelParts {
                    name,
                    c_name: name,
                    source: self.source,
                    checked_at: self.source.len(),
                    check_names: &[],
                    generics: &[],
                    params: Box::leak(params.into_boxed_slice()),
                    // Raw C checks no index: only the typed launcher, whose contract the
                    // caller accepted when the kernel was made, launches it (a safe
                    // launch through its definition is refused).
                    options: KernelOptions {
                        unchecked: true,
                        ..self.options
                    },
                    signatures: &[],
                    device_fns: &[],
                    waits: false,
                    cooperative: false,
                    tensor_cores: false,
                    fast_path: &[],
                    fast_path_fn: None,
                    vector_params: &[],
                    signature_slots: Box::leak(Box::new([AtomicU32::new(0)])),
                    constants: &[],
                    structs: &[],
                    const_params: &[],
                    const_args: &[],
                    instances: None,
                    // Unknown for foreign C: the driver's figure is checked at load.
                    local_bytes: 0,
                    trait_impls: &[],
                };
                // SAFETY: the C parameters were checked against `P` above, and the caller
                // promises what the check cannot see (see `# Safety`); the slot is this
                // definition's alone.
                let def = unsafe { KernelDef::__from_parts(parts) };
                &*Box::leak(Box::new(def.with_headers(self.headers)))
            });
        Ok(RawKernel::from_def(def))
    }

    /// The C parameters of the kernel `name`, declared in the source or else in its headers
    /// (named ones, then the files under the directories). Headers that declare it
    /// differently are an error: which one NVRTC reads depends on the `#include`s, which
    /// this check does not follow.
    fn c_parameters(&self, name: &str) -> std::result::Result<Vec<CParam>, String> {
        let in_source = c_parameters(self.source, name);
        if in_source.is_ok() || self.headers.is_empty() {
            return in_source;
        }
        let named = self
            .headers
            .named
            .iter()
            .map(|(n, text)| (n.clone(), text.clone()));
        let files = crate::compile::headers::snapshot(self.headers)
            .map(|s| s.files)
            .map_err(|e| e.to_string())?;
        let in_files = files
            .into_iter()
            .map(|(path, text)| (path.display().to_string(), text));
        let found: Vec<(String, Vec<CParam>)> = named
            .chain(in_files)
            .filter_map(|(origin, text)| c_parameters(&text, name).ok().map(|p| (origin, p)))
            .collect();
        match found.split_first() {
            None => in_source,
            Some(((_, first), rest)) if rest.iter().all(|(_, p)| p == first) => Ok(first.clone()),
            Some(((a, _), rest)) => {
                let b = rest.iter().map(|(o, _)| o.as_str()).next().unwrap_or("");
                Err(format!(
                    "`{name}` is declared differently in the headers `{a}` and `{b}`, and which \
                     one NVRTC compiles depends on the source's `#include`s: declare the kernel \
                     in the source"
                ))
            }
        }
    }
}

/// `headers`, kept for the rest of the process (once for equal ones).
fn keep(headers: Headers) -> &'static Headers {
    static KEPT: Mutex<Option<std::collections::HashSet<&'static Headers>>> = Mutex::new(None);
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    let kept = kept.get_or_insert_with(Default::default);
    if let Some(h) = kept.get(&headers) {
        return h;
    }
    let h: &'static Headers = Box::leak(Box::new(headers));
    kept.insert(h);
    h
}

/// `source` behind a `#line` directive, so NVRTC's messages count lines from its start
/// rather than from the prelude's; kept for the rest of the process.
fn with_line_directive(source: &str) -> &'static str {
    intern(&format!("#line 1 \"raw_module.cu\"\n{source}"))
}

/// A string kept for the rest of the process.
fn intern(s: &str) -> &'static str {
    static STRINGS: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);
    let mut strings = STRINGS.lock().unwrap_or_else(|p| p.into_inner());
    strings
        .get_or_insert_with(HashMap::new)
        .entry(s.to_owned())
        .or_insert_with(|| Box::leak(s.to_owned().into_boxed_str()))
}
