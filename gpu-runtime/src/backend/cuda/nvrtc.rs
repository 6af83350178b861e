//! Compiling CUDA C with NVRTC. Runs on the CPU: no GPU is needed.

use std::ffi::{c_char, CString};

use cudarc::nvrtc::{result, sys};

use super::libraries::require_nvrtc;
use crate::error::GpuError;

/// NVRTC's `(major, minor)` version.
pub fn nvrtc_version() -> Result<(i32, i32), GpuError> {
    require_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both pointers are valid for writes.
    let status = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    status.result().map_err(|e| GpuError::NvrtcNotFound {
        detail: format!("nvrtcVersion failed: {e:?}"),
        searched: Vec::new(),
    })?;
    Ok((major, minor))
}

/// Why a compilation failed: NVRTC's log, or a failure before it could log anything.
#[derive(Debug)]
pub(crate) enum CompileFailure {
    Environment(GpuError),
    Rejected { log: String },
}

/// What to take from a compilation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Output {
    /// Machine code; `arch` must be a real architecture (`sm_90`).
    Cubin,
    /// PTX, NUL-terminated as the driver loads it; for a virtual architecture
    /// (`compute_90`) or alongside a CUBIN.
    Ptx,
}

type SizeFn = unsafe fn(sys::nvrtcProgram, *mut usize) -> sys::nvrtcResult;
type GetFn = unsafe fn(sys::nvrtcProgram, *mut c_char) -> sys::nvrtcResult;

/// Compile `source` for `arch` with NVRTC and take each of `outputs` from the result, in
/// order. A compilation for a real architecture (`sm_90`) has its PTX as well as its CUBIN,
/// so asking for both costs one compilation. Outputs after the first are optional: one
/// NVRTC cannot give is empty. `headers` are `(name, text)`: what `#include "name"` finds
/// before it searches a directory.
pub(crate) fn compile_program(
    source: &str,
    program_name: &str,
    arch: &str,
    extra_options: &[&str],
    headers: &[(String, String)],
    outputs: &[Output],
) -> Result<Vec<Vec<u8>>, CompileFailure> {
    // NVRTC's compiler recurses deeply: on a thread without the room (a small spawned
    // thread's stack), it runs on one with it.
    let run = || compile_here(source, program_name, arch, extra_options, headers, outputs);
    crate::backend::stack_room::with_room(NVRTC_STACK_BYTES, run).unwrap_or_else(|e| {
        Err(CompileFailure::Rejected {
            log: format!(
                "this thread has less than {NVRTC_STACK_BYTES} bytes of stack left for NVRTC, \
                 and no thread with that stack could be started: {e}"
            ),
        })
    })
}

/// The stack NVRTC is given: a main thread's (8 MB).
const NVRTC_STACK_BYTES: usize = crate::backend::stack_room::ROOMY_STACK_BYTES;

/// [`compile_program`] on the calling thread.
fn compile_here(
    source: &str,
    program_name: &str,
    arch: &str,
    extra_options: &[&str],
    headers: &[(String, String)],
    outputs: &[Output],
) -> Result<Vec<Vec<u8>>, CompileFailure> {
    require_nvrtc().map_err(CompileFailure::Environment)?;
    let rejected = |log: String| CompileFailure::Rejected { log };
    let program = create_program(source, program_name, headers).map_err(rejected)?;

    let mut options = vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_owned(),
    ];
    options.extend(extra_options.iter().map(|s| s.to_string()));
    // SAFETY: `program` is live; options are plain strings.
    let compiled = unsafe { result::compile_program(program.0, &options) };
    // SAFETY: `program` is live.
    let log = unsafe { result::get_program_log(program.0) }
        .map(|raw| c_chars_to_string(&raw))
        .unwrap_or_default();
    if compiled.is_err() {
        return Err(rejected(log));
    }
    // The first output is what was asked for; one after it that NVRTC cannot give is
    // logged and left empty, never a failed compilation.
    let mut images = Vec::with_capacity(outputs.len());
    for (i, &output) in outputs.iter().enumerate() {
        match take(&program, arch, output) {
            Ok(image) => images.push(image),
            Err(why) if i > 0 => {
                log::warn!("{why}");
                images.push(Vec::new());
            }
            Err(why) => return Err(rejected(why)),
        }
    }
    Ok(images)
}

/// An NVRTC program of `source` with `headers` (`(name, text)`).
fn create_program(
    source: &str,
    program_name: &str,
    headers: &[(String, String)],
) -> Result<Program, String> {
    let c = |what: &str, s: &str| {
        CString::new(s).map_err(|_| format!("{what} `{}` contains a NUL byte", s.escape_debug()))
    };
    let src = CString::new(source).map_err(|_| "the source contains a NUL byte".to_owned())?;
    let name = c("the program name", program_name)?;
    let mut names = Vec::with_capacity(headers.len());
    let mut texts = Vec::with_capacity(headers.len());
    for (n, t) in headers {
        names.push(c("the header name", n)?);
        let text = CString::new(t.as_str());
        texts.push(text.map_err(|_| format!("the header `{n}` contains a NUL byte"))?);
    }
    let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let text_ptrs: Vec<*const c_char> = texts.iter().map(|t| t.as_ptr()).collect();
    let count = i32::try_from(headers.len()).map_err(|_| "too many headers".to_owned())?;
    let mut program = std::mem::MaybeUninit::uninit();
    // SAFETY: every pointer is to a NUL-terminated string that outlives the call, the two
    // header arrays hold `count` entries each, and NVRTC copies what it keeps.
    unsafe {
        sys::nvrtcCreateProgram(
            program.as_mut_ptr(),
            src.as_ptr(),
            name.as_ptr(),
            count,
            text_ptrs.as_ptr(),
            name_ptrs.as_ptr(),
        )
    }
    .result()
    .map_err(|e| format!("nvrtcCreateProgram failed: {e:?}"))?;
    // SAFETY: nvrtcCreateProgram succeeded, so it wrote the program.
    Ok(Program(unsafe { program.assume_init() }))
}

/// One output of a compiled program.
fn take(program: &Program, arch: &str, output: Output) -> Result<Vec<u8>, String> {
    let (size_fn, get_fn, what): (SizeFn, GetFn, &str) = match output {
        Output::Cubin => (sys::nvrtcGetCUBINSize, sys::nvrtcGetCUBIN, "CUBIN"),
        Output::Ptx => (sys::nvrtcGetPTXSize, sys::nvrtcGetPTX, "PTX"),
    };
    let mut size = 0usize;
    // SAFETY: `program` is live and compiled; `size` is valid for writes.
    unsafe { size_fn(program.0, &mut size) }
        .result()
        .map_err(|e| {
            format!("no {what} from NVRTC: {e:?} (is `{arch}` the right kind of architecture?)")
        })?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` holds exactly the `size` bytes NVRTC reported.
    unsafe { get_fn(program.0, image.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| format!("reading the {what} failed: {e:?}"))?;
    Ok(image)
}

struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        let _ = unsafe { result::destroy_program(self.0) };
    }
}

fn c_chars_to_string(raw: &[c_char]) -> String {
    let bytes: Vec<u8> = raw
        .iter()
        .map(|&c| c as u8)
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).trim_end().to_owned()
}
