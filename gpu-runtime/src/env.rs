//! The environment variables the runtime reads, each name a constant here (the guide's
//! "Environment variables" table says more). A value that is not what the variable takes
//! is ignored with a warning (through `log`), except where a variable says otherwise;
//! never a panic or an overflow.

/// Environment variable that makes every launch wait for its kernel and report its fault
/// itself (`GPU_RUNTIME_SYNC=1`), as `CUDA_LAUNCH_BLOCKING` does for CUDA: slower, for
/// finding the launch that faulted. Read when a device is opened.
pub const SYNC_ENV: &str = "GPU_RUNTIME_SYNC";

/// Environment variable that stops a launch after this many seconds
/// (`GPU_RUNTIME_TIMEOUT=30`) with [`GpuError::Timeout`](crate::GpuError::Timeout); unset,
/// a launch runs as long as its kernel does. The simulator stops its threads at a loop's
/// back edge or between threads; CUDA devices do not read it yet (a kernel there runs to
/// its end). Read at each launch.
pub const TIMEOUT_ENV: &str = "GPU_RUNTIME_TIMEOUT";

/// The name [`TIMEOUT_ENV`] had before 0.2; set, it is ignored with a warning naming the
/// new one.
pub(crate) const OLD_SIM_TIMEOUT_ENV: &str = "GPU_RUNTIME_SIM_TIMEOUT";

/// Environment variable that sets the most OS threads that run a simulated launch's blocks
/// at once (`GPU_RUNTIME_SIM_THREADS=1` runs them one after another); unset, one per core.
/// A small launch (under 8,192 threads per OS thread) uses fewer. Read at the first
/// simulated launch.
pub const SIM_THREADS_ENV: &str = "GPU_RUNTIME_SIM_THREADS";

/// Environment variable that sets the GPU's buffer for kernels' `println!` output, in
/// megabytes from 1 to 4096 (`GPU_RUNTIME_PRINTF_MB=64`; CUDA's default is 1). Read when
/// a device is opened, before any kernel prints. The buffer is circular: a launch that
/// prints more than it holds between two synchronisations loses its oldest lines.
pub const PRINTF_BUFFER_ENV: &str = "GPU_RUNTIME_PRINTF_MB";

/// Environment variable that chooses the backend of [`Device::gpu_or_simulator`](crate::Device::gpu_or_simulator):
/// `cuda`, `sim` (or `simulator`) or `auto` (the default). Any other value makes that call an
/// error (`InvalidArgument`) rather than a warning, since it would pick the device.
pub const BACKEND_ENV: &str = "GPU_RUNTIME_BACKEND";

/// Environment variable naming the NVRTC library file to use.
pub const NVRTC_ENV: &str = "GPU_RUNTIME_NVRTC";

/// Environment variable naming the NCCL library file to use.
pub const NCCL_ENV: &str = "GPU_RUNTIME_NCCL";

/// Writes specialised sources and PTX to this folder.
pub const DUMP_ENV: &str = "GPU_RUNTIME_DUMP";

/// Turns the disk cache off when set to `0`, `false` or `off`.
pub const CACHE_ENV: &str = "GPU_RUNTIME_CACHE";
/// Moves the disk cache to this folder.
pub const CACHE_DIR_ENV: &str = "GPU_RUNTIME_CACHE_DIR";
/// The disk cache's size limit in MiB.
pub const CACHE_MAX_MB_ENV: &str = "GPU_RUNTIME_CACHE_MAX_MB";

/// Environment variable: the default deadline of a communicator's calls, in seconds (300).
pub const COMM_TIMEOUT_ENV: &str = "GPU_RUNTIME_COMM_TIMEOUT";

/// Environment variable that makes the test suite's NVRTC checks fail where NVRTC is
/// absent instead of skipping with a note (`scripts/test`, and so CI, sets it).
pub const REQUIRE_NVRTC_ENV: &str = "GPU_RUNTIME_REQUIRE_NVRTC";

/// Whether `name` is set to a true value (`1`, `true`, `on`, `yes`; `0`, `false`, `off`,
/// `no` or unset are false).
pub(crate) fn flag(name: &str) -> bool {
    match std::env::var(name) {
        Err(_) => false,
        Ok(v) => match v.trim().to_ascii_lowercase().as_str() {
            "" | "0" | "false" | "off" | "no" => false,
            "1" | "true" | "on" | "yes" => true,
            other => {
                log::warn!("{name}={other:?} is not a switch (1 or 0); ignored");
                false
            }
        },
    }
}

/// A positive number of seconds in `name`, at most a year; `None` when unset or invalid.
pub(crate) fn seconds(name: &str) -> Option<f64> {
    let v = std::env::var(name).ok()?;
    match v.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 365.0 * 24.0 * 3600.0 => Some(s),
        _ => {
            log::warn!("{name}={v:?} is not a number of seconds (above 0); ignored");
            None
        }
    }
}

/// A whole number of megabytes in `name` from 1 to `max`, as bytes; `default` when unset
/// or invalid.
pub(crate) fn megabytes(name: &str, default: u64, max: u64) -> u64 {
    let mb = match std::env::var(name) {
        Err(_) => default,
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if (1..=max).contains(&n) => n,
            _ => {
                log::warn!(
                    "{name}={v:?} is not a size in megabytes from 1 to {max}; using {default}"
                );
                default
            }
        },
    };
    mb.saturating_mul(1024 * 1024)
}

/// A whole number in `name` from 1 to `max`; `default` when unset or invalid.
pub(crate) fn count(name: &str, default: usize, max: usize) -> usize {
    match std::env::var(name) {
        Err(_) => default,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if (1..=max).contains(&n) => n,
            _ => {
                log::warn!("{name}={v:?} is not a whole number from 1 to {max}; using {default}");
                default
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_parsed_and_bounded() {
        // Variables no other test sets.
        std::env::set_var("GPU_RUNTIME_TEST_FLAG", "yes");
        assert!(flag("GPU_RUNTIME_TEST_FLAG"));
        std::env::set_var("GPU_RUNTIME_TEST_FLAG", "maybe");
        assert!(!flag("GPU_RUNTIME_TEST_FLAG"));
        std::env::set_var("GPU_RUNTIME_TEST_MB", "18446744073709551615");
        assert_eq!(megabytes("GPU_RUNTIME_TEST_MB", 512, 1 << 20), 512 << 20);
        std::env::set_var("GPU_RUNTIME_TEST_MB", "3");
        assert_eq!(megabytes("GPU_RUNTIME_TEST_MB", 512, 1 << 20), 3 << 20);
        std::env::set_var("GPU_RUNTIME_TEST_S", "inf");
        assert_eq!(seconds("GPU_RUNTIME_TEST_S"), None);
        std::env::set_var("GPU_RUNTIME_TEST_S", "2.5");
        assert_eq!(seconds("GPU_RUNTIME_TEST_S"), Some(2.5));
        std::env::set_var("GPU_RUNTIME_TEST_N", "0");
        assert_eq!(count("GPU_RUNTIME_TEST_N", 2, 8), 2);
        std::env::set_var("GPU_RUNTIME_TEST_N", "9");
        assert_eq!(count("GPU_RUNTIME_TEST_N", 2, 8), 2);
        std::env::set_var("GPU_RUNTIME_TEST_N", " 8");
        assert_eq!(count("GPU_RUNTIME_TEST_N", 2, 8), 8);
    }
}
