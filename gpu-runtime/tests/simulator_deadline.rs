//! The simulator's deadline (`GPU_RUNTIME_TIMEOUT`) stops a kernel that never ends: an
//! endless loop, alone or in one thread of a block whose other threads wait for it at a
//! barrier.
//!
//! The environment variable is set only in a child process (this test binary run again),
//! so no other test's launches see it.

use std::process::Command;
use std::time::{Duration, Instant};

use gpu_runtime::prelude::*;

const CHILD_ENV: &str = "SIM_DEADLINE_CHILD";

#[gpu_kernel]
fn spin(a: &mut [u32]) {
    let mut x = 1u32;
    while x != 0 {
        x = x | 1;
    }
    a[0] = x;
}

#[gpu_kernel]
fn spin_while_others_wait(a: &mut [u32]) {
    let t = thread_idx().x;
    if t == 1 {
        let mut x = 1u32;
        while x != 0 {
            x = x | 1;
        }
        a[1] = x;
    }
    sync_threads();
    a[0] = t;
}

/// No loop at all: a huge grid of short threads runs past the deadline too.
#[gpu_kernel]
fn touch(a: &mut [u32]) {
    let i = grid_1d();
    if i < a.len() {
        a[i] = 1;
    }
}

/// The same with a barrier, so its blocks run as fibers.
#[gpu_kernel]
fn touch_in_step(a: &mut [u32]) {
    let i = grid_1d();
    sync_threads();
    if i < a.len() {
        a[i] = 2;
    }
}

#[test]
fn an_endless_kernel_stops_at_the_deadline() {
    let exe = std::env::current_exe().expect("the test binary");
    let started = Instant::now();
    let out = Command::new(exe)
        .args([
            "--exact",
            "child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, "1")
        .env(gpu_runtime::env::TIMEOUT_ENV, "1")
        .output()
        .expect("the child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("spin: timeout")
            && text.contains("spin_while_others_wait: timeout")
            && text.contains("touch: timeout")
            && text.contains("touch_in_step: timeout"),
        "{text}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

#[test]
#[ignore = "a child process of its parent test, which runs it"]
fn child() {
    assert!(std::env::var(CHILD_ENV).is_ok(), "run by its parent test");
    let dev = Device::simulator();
    let mut a = dev.zeros::<u32>(4).expect("an array");
    for (name, r) in [
        ("spin", launch!(spin[1, 1](&mut a))),
        (
            "spin_while_others_wait",
            launch!(spin_while_others_wait[1, 64](&mut a)),
        ),
        // About 10^9 and 10^8 threads: minutes on the simulator without the deadline.
        ("touch", launch!(touch[1 << 20, 1024](&mut a))),
        (
            "touch_in_step",
            launch!(touch_in_step[1 << 17, 1024](&mut a)),
        ),
    ] {
        match r {
            Err(GpuError::Timeout { seconds: 1.0, .. }) => println!("{name}: timeout"),
            other => panic!("{name}: expected a timeout, got {other:?}"),
        }
    }
}
