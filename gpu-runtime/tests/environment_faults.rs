//! Environment faults are typed errors with a message that says what to do, never panics:
//! a missing NVRTC, an unknown backend, no GPU or no such GPU, and an allocation that
//! cannot be met. Settings read once per process run in child processes of these tests.

use std::process::{Command, Output};

use gpu_runtime::prelude::*;

const CHILD_ENV: &str = "ENVIRONMENT_FAULTS_CHILD";

/// Runs the ignored test `child_{role}` of this binary with `envs` set.
fn run_child(role: &str, envs: &[(&str, &str)]) -> Output {
    let mut c = Command::new(std::env::current_exe().expect("the test binary's path"));
    c.args([
        "--exact",
        &format!("child_{role}"),
        "--ignored",
        "--nocapture",
    ])
    .env(CHILD_ENV, role);
    for (k, v) in envs {
        c.env(k, v);
    }
    c.output().expect("the child test runs")
}

fn assert_child_passed(out: &Output) {
    // A filter that matched nothing would also exit 0: require the one test to have run.
    let ran = String::from_utf8_lossy(&out.stdout).contains("1 passed");
    assert!(
        out.status.success() && ran,
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn require_child(role: &str) {
    assert_eq!(
        std::env::var(CHILD_ENV).as_deref(),
        Ok(role),
        "run by its parent test, with {CHILD_ENV} set"
    );
}

#[gpu_kernel]
fn twice(a: &mut [f32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = a[i] * 2.0;
    }
}

#[test]
fn a_missing_nvrtc_file_is_an_error_that_names_it() {
    assert_child_passed(&run_child(
        "missing_nvrtc",
        &[("GPU_RUNTIME_NVRTC", "/nonexistent/libnvrtc.so.13")],
    ));
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_missing_nvrtc() {
    require_child("missing_nvrtc");
    let e = gpu_runtime::nvrtc_version().expect_err("no NVRTC at that path");
    assert!(matches!(e, GpuError::NvrtcNotFound { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("/nonexistent/libnvrtc.so.13"), "{msg}");
    // Compiling a kernel reports the same, twice in a row (no poisoned state, no panic).
    for _ in 0..2 {
        let e = twice::definition()
            .cubin(&[], "sm_90")
            .expect_err("cannot compile without NVRTC");
        assert!(matches!(e, GpuError::NvrtcNotFound { .. }), "{e:?}");
    }
}

#[test]
fn an_unknown_backend_is_an_error_that_lists_the_choices() {
    assert_child_passed(&run_child(
        "unknown_backend",
        &[("GPU_RUNTIME_BACKEND", "tpu")],
    ));
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_unknown_backend() {
    require_child("unknown_backend");
    let e = Device::gpu_or_simulator().expect_err("`tpu` is not a backend");
    let msg = e.to_string();
    assert!(matches!(e, GpuError::InvalidArgument(_)), "{e:?}");
    assert!(msg.contains("tpu") && msg.contains("sim"), "{msg}");
}

#[test]
fn forcing_cuda_without_a_gpu_is_an_error_not_a_fallback() {
    assert_child_passed(&run_child(
        "forced_cuda",
        &[("GPU_RUNTIME_BACKEND", "cuda")],
    ));
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child_forced_cuda() {
    require_child("forced_cuda");
    match (Device::cuda(0), Device::gpu_or_simulator()) {
        // A machine with a GPU: forcing it must give it.
        (Ok(gpu), Ok(d)) => assert_eq!(d, gpu),
        // Without one, forcing it must fail the same way, not fall back to the simulator.
        (Err(direct), Err(forced)) => assert_eq!(direct.to_string(), forced.to_string()),
        (direct, forced) => panic!("Device::cuda(0) = {direct:?} but forced = {forced:?}"),
    }
}

#[test]
fn a_gpu_that_does_not_exist_is_an_error() {
    let e = Device::cuda(4096).expect_err("no machine has 4097 GPUs");
    assert!(
        matches!(
            e,
            GpuError::BadOrdinal { .. }
                | GpuError::DriverNotFound { .. }
                | GpuError::NoDevice { .. }
        ),
        "{e:?}"
    );
    assert!(!e.to_string().is_empty());
}

#[test]
fn an_allocation_that_cannot_be_met_is_out_of_memory() {
    let sim = Device::simulator();
    // Larger than any host, and larger than the address space.
    for (len, bytes) in [(1usize << 60, 1u64 << 63), (usize::MAX, u64::MAX)] {
        match sim.zeros::<f64>(len) {
            Err(GpuError::OutOfMemory { bytes: b, .. }) => assert_eq!(b, bytes),
            other => panic!("expected OutOfMemory, got {:?}", other.map(|a| a.len())),
        }
    }
    // The device is still usable.
    let a = sim.to_device(&[1.0f32, 2.0]).unwrap();
    assert_eq!(a.to_host().unwrap(), [1.0, 2.0]);
}
