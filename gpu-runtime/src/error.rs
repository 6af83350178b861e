//! The one error type of the runtime.
//!
//! Every failing step has its own variant, and every variant that concerns a kernel names
//! it (and its dtype signature where one exists), so a message read in a log says what
//! failed without a backtrace.

use std::path::PathBuf;

use cudarc::driver::DriverError;

/// Everything that can go wrong between a `#[gpu_kernel]` and its result.
#[derive(Debug)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (`libcuda.so`) could not be loaded.
    DriverNotFound {
        /// What was tried.
        detail: String,
    },

    /// The driver loaded, but reports no usable CUDA device.
    NoDevice {
        /// The driver's answer.
        detail: String,
    },

    /// A device ordinal past the number of devices.
    BadOrdinal {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },

    /// NVRTC, the CUDA runtime compiler, could not be found or loaded.
    NvrtcNotFound {
        /// Why the last candidate failed.
        detail: String,
        /// Every path that was tried, in order.
        searched: Vec<PathBuf>,
    },

    /// NVRTC rejected a kernel's source. The log and the exact source are kept.
    Compile {
        /// The kernel's Rust name.
        kernel: String,
        /// Its dtype signature, such as `vec_add::<f32>`.
        signature: String,
        /// The target architecture, such as `sm_90`.
        arch: String,
        /// NVRTC's log.
        log: String,
        /// The specialised CUDA C that was compiled.
        source_code: String,
    },

    /// A launch configuration that cannot run; checked before the driver sees it.
    InvalidLaunch {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// What is wrong and what the limit is.
        reason: String,
    },

    /// Arrays of one launch live on different devices.
    DeviceMismatch {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// The parameter that does not match.
        param: &'static str,
        /// The device of the launch.
        expected: String,
        /// The device of that argument.
        found: String,
    },

    /// An index past the end of an array: found by the check of a checked kernel on the
    /// GPU (reported by the first synchronising call after the kernel ran), or by the
    /// simulator (reported by the launch).
    OutOfBounds {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// The parameter that was indexed.
        param: &'static str,
        /// The index.
        index: usize,
        /// The parameter's length.
        len: usize,
    },

    /// An integer operation that Rust defines as a panic, in a kernel on the GPU: a
    /// division or remainder by zero, `MIN / -1`, or an overflow where overflow checks are
    /// on. Reported by the first synchronising call after the kernel ran.
    IntegerFault {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// Its dtype signature, such as `divide::<i32>`.
        signature: String,
        /// Rust's panic message for the operation, such as `attempt to divide by zero`.
        operation: &'static str,
    },

    /// A kernel panicked: a failed `assert!`, `assert_eq!` or `debug_assert!`, a
    /// `panic!`, `unreachable!`, `todo!` or `unimplemented!` in its code.
    Panic {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// Where: `file:line:column` of the macro.
        location: String,
        /// The message, as Rust's panic would write it.
        message: String,
    },

    /// A simulated launch ran past its deadline ([`TIMEOUT_ENV`](crate::env::TIMEOUT_ENV)).
    Timeout {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// The deadline, in seconds.
        seconds: f64,
    },

    /// Threads of a simulated launch wait for each other forever: each waits at a barrier
    /// or in a warp function that a thread it waits for never reaches. On a GPU the
    /// launch would hang.
    Deadlock {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// Where the threads wait, grouped.
        waits: String,
    },

    /// The kernel's body panicked in the simulator (an overflow, a division by zero, ...).
    SimulatorPanic {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// threadIdx of the failing thread.
        thread: (u32, u32, u32),
        /// blockIdx of the failing thread.
        block: (u32, u32, u32),
        /// The panic's message.
        message: String,
    },

    /// The driver refused a launch.
    Launch {
        /// The kernel's Rust name.
        kernel: &'static str,
        /// Its dtype signature.
        signature: String,
        /// The driver's error.
        source: DriverError,
    },

    /// A driver call outside a launch failed (allocation, copy, synchronisation, ...).
    Driver {
        /// What was being done.
        operation: &'static str,
        /// The driver's error.
        source: DriverError,
    },

    /// A kernel faulted on the GPU (an illegal address, a trap, a misaligned access, ...):
    /// the CUDA context is lost with every array and kernel on it. Reported once per
    /// device, by the first call that sees it (a synchronisation, a copy, the next launch);
    /// later calls return [`GpuError::DeviceLost`].
    DeviceFault {
        /// The device's name.
        device: String,
        /// The device's ordinal.
        ordinal: usize,
        /// The kernel launched last on the device before the fault was seen (launches are
        /// asynchronous, so the driver reports the fault at a later call).
        kernel: Option<&'static str>,
        /// That launch's dtype signature, such as `vec_add::<f32>`.
        signature: Option<String>,
        /// The driver's error.
        source: DriverError,
    },

    /// A call on a device that faulted earlier (see [`GpuError::DeviceFault`]), or an
    /// attempt to open it again in the same process that the driver refused.
    DeviceLost {
        /// The device's name.
        device: String,
        /// The device's ordinal.
        ordinal: usize,
        /// What the first fault was.
        first: String,
    },

    /// An allocation the device (or, on the simulator, the host) cannot satisfy.
    OutOfMemory {
        /// The device's name.
        device: String,
        /// The size asked for, in bytes (saturated at `u64::MAX` when it overflows).
        bytes: u64,
    },

    /// Something a graph capture cannot take ([`Device::capture`](crate::Device::capture)):
    /// a call inside the capture that would wait for the device or run work outside the
    /// graph, a launch on another stream, or a stream or graph used where it cannot be.
    Capture {
        /// What was attempted.
        operation: String,
        /// Why it cannot be, and what to do instead.
        reason: String,
    },

    /// NCCL (`libnccl`), which the collectives of CUDA devices use, could not be found or
    /// loaded, or is too old.
    NcclNotFound {
        /// Why the last candidate failed.
        detail: String,
        /// Every path that was tried, in order.
        searched: Vec<PathBuf>,
    },

    /// A collective operation or communicator failed: a rank failed, disappeared or
    /// called another operation (the deadline passed and the communicator was aborted),
    /// NCCL reported an error, or the call cannot be made as asked. Once a communicator
    /// has failed, every later call on it returns this.
    Collective {
        /// The rank that reports it, and its world size.
        rank: usize,
        /// What was attempted.
        operation: String,
        /// What happened.
        reason: String,
    },

    /// An argument that the runtime cannot accept.
    InvalidArgument(String),
}

impl std::fmt::Display for GpuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuError::DriverNotFound { detail, .. } => write!(
                f,
                "the CUDA driver library could not be loaded ({detail}); install the NVIDIA driver, \
                 or run on the CPU simulator with GPU_RUNTIME_BACKEND=sim"
            ),
            GpuError::NoDevice { detail, .. } => write!(
                f,
                "no CUDA device is available ({detail}); run on the CPU simulator with GPU_RUNTIME_BACKEND=sim"
            ),
            GpuError::BadOrdinal { count, ordinal, .. } => write!(
                f,
                "CUDA device {ordinal} does not exist: this machine has {count} device(s), numbered from 0"
            ),
            GpuError::NvrtcNotFound { detail, searched, .. } => write!(
                f,
                "NVRTC (libnvrtc) could not be loaded: {detail}. Searched: {searched}. Install the CUDA \
                 toolkit, or `pip install nvidia-cuda-nvrtc==13.0.88`, or set GPU_RUNTIME_NVRTC to the \
                 path of libnvrtc.so",
                searched = display_paths(searched)
            ),
            GpuError::Compile { arch, kernel, log, signature, source_code, .. } => write!(
                f,
                "NVRTC could not compile kernel `{kernel}` for {signature} ({arch}):\n{log}\n--- generated source ---\n{source_code}"
            ),
            GpuError::InvalidLaunch { kernel, reason, .. } => write!(
                f,
                "invalid launch of kernel `{kernel}`: {reason}"
            ),
            GpuError::DeviceMismatch { expected, found, kernel, param, .. } => write!(
                f,
                "kernel `{kernel}`: argument `{param}` lives on {found}, but the launch runs on {expected}; copy it with `to_device` first"
            ),
            GpuError::OutOfBounds { index, kernel, len, param, .. } => write!(
                f,
                "kernel `{kernel}`: index {index} is out of bounds for `{param}` of length {len}"
            ),
            GpuError::IntegerFault { operation, signature, .. } => write!(
                f,
                "kernel `{signature}`: {operation}"
            ),
            GpuError::Panic {
                kernel,
                location,
                message,
            } => write!(f, "kernel `{kernel}` panicked at {location}:\n{message}"),
            GpuError::Timeout { kernel, seconds, .. } => write!(
                f,
                "kernel `{kernel}` ran for more than {seconds} s on the simulator and was stopped \
                 (GPU_RUNTIME_TIMEOUT); look for a loop that never ends"
            ),
            GpuError::Deadlock { kernel, waits, .. } => write!(
                f,
                "kernel `{kernel}` can never finish: its threads wait for each other ({waits}); on a \
                 GPU this launch would hang. Every thread of a block must reach the same \
                 sync_threads(), and every lane a warp function's mask names must call it"
            ),
            GpuError::SimulatorPanic { block, kernel, message, thread, .. } => write!(
                f,
                "kernel `{kernel}` panicked in the simulator (thread {thread:?} of block {block:?}): {message}"
            ),
            GpuError::Launch { kernel, signature, source, .. } => write!(
                f,
                "launch of kernel `{kernel}` ({signature}) failed: {source}"
            ),
            GpuError::Driver { operation, source, .. } => write!(
                f,
                "CUDA {operation} failed: {source}"
            ),
            GpuError::DeviceFault { device, kernel, signature, source, .. } => write!(
                f,
                "the GPU faulted on {device} ({source}); {launched}. The device's context is lost \
                 with its arrays and kernels, and current drivers refuse new contexts in this process: \
                 save what the host has and restart the process. Checked kernels cannot cause this; \
                 look at raw CUDA C kernels and `unchecked` ones (GPU_RUNTIME_SYNC=1 finds the launch)",
                launched = describe_launch(kernel, signature)
            ),
            GpuError::DeviceLost { device, first, ordinal, .. } => write!(
                f,
                "{device} cannot be used any more in this process: it faulted earlier ({first}). \
                 Restart the process to use it again (where the driver allows it, dropping every \
                 array and clone of the Device and calling Device::cuda({ordinal}) opens a fresh context)"
            ),
            GpuError::OutOfMemory { bytes, device, .. } => write!(
                f,
                "out of memory on {device}: {bytes} bytes were requested; free arrays that are no \
                 longer needed (dropping a `DeviceArray` frees it) or work in smaller pieces"
            ),
            GpuError::Capture { operation, reason } => write!(
                f,
                "graph capture: {operation}: {reason}"
            ),
            GpuError::NcclNotFound { detail, searched, .. } => write!(
                f,
                "NCCL (libnccl) could not be loaded: {detail}. Searched: {searched}. Install NCCL \
                 (`apt install libnccl2`, or `pip install nvidia-nccl-cu12`), or set GPU_RUNTIME_NCCL \
                 to the path of libnccl.so.2",
                searched = display_paths(searched)
            ),
            GpuError::Collective { rank, operation, reason } => {
                write!(f, "collective `{operation}` on rank {rank}: {reason}")
            }
            GpuError::InvalidArgument(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for GpuError {
    /// The driver's error, for the variants that wrap one.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            GpuError::Launch { source, .. }
            | GpuError::Driver { source, .. }
            | GpuError::DeviceFault { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Which launch a fault followed, in words.
fn describe_launch(kernel: &Option<&'static str>, signature: &Option<String>) -> String {
    match (kernel, signature) {
        (Some(k), Some(s)) => format!("the kernel launched last was `{k}` ({s})"),
        (Some(k), None) => format!("the kernel launched last was `{k}`"),
        _ => "no kernel had been launched on it".to_owned(),
    }
}

/// The first few paths, then how many more (the whole list is in the error's field).
fn display_paths(paths: &[PathBuf]) -> String {
    const SHOWN: usize = 6;
    if paths.is_empty() {
        return "nothing".to_owned();
    }
    let mut out = paths
        .iter()
        .take(SHOWN)
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        out.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    out
}

impl GpuError {
    pub(crate) fn driver(operation: &'static str) -> impl FnOnce(DriverError) -> GpuError {
        move |source| GpuError::Driver { operation, source }
    }
}

/// A driver error from a cudarc call made next to this crate's (interop code), so `?`
/// works on both in one function. It is a `GpuError::Driver`: which device it came from is
/// not known here, so a sticky fault met this way is reported as `DeviceFault` by the
/// device's own next call, not by this conversion.
impl From<DriverError> for GpuError {
    fn from(source: DriverError) -> GpuError {
        GpuError::Driver {
            operation: "a CUDA driver call",
            source,
        }
    }
}

/// The runtime's result type.
pub type Result<T, E = GpuError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn messages_name_what_failed_and_driver_errors_are_the_source() {
        let e = GpuError::OutOfBounds {
            kernel: "k",
            param: "m (column)",
            index: 7,
            len: 7,
        };
        assert_eq!(
            e.to_string(),
            "kernel `k`: index 7 is out of bounds for `m (column)` of length 7"
        );
        assert!(e.source().is_none());
        let searched: Vec<PathBuf> = (0..8).map(|k| PathBuf::from(format!("/p{k}"))).collect();
        let e = GpuError::NvrtcNotFound {
            detail: "no candidate file exists".into(),
            searched,
        };
        let text = e.to_string();
        assert!(
            text.starts_with("NVRTC (libnvrtc) could not be loaded: no candidate file exists. Searched: /p0, /p1, /p2, /p3, /p4, /p5 and 2 more. Install the CUDA toolkit,"),
            "{text}"
        );
        let e = GpuError::DeviceLost {
            device: "CUDA device 0".into(),
            ordinal: 0,
            first: "an illegal address".into(),
        };
        assert!(e
            .to_string()
            .contains("Device::cuda(0) opens a fresh context"));
        assert_eq!(GpuError::InvalidArgument("bad".into()).to_string(), "bad");
        let driver = cudarc::driver::DriverError(
            cudarc::driver::sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY,
        );
        let e = GpuError::Driver {
            operation: "allocation",
            source: driver,
        };
        assert!(e.source().is_some());
    }
}
