//! A simulated kernel whose threads synchronise and use large local arrays leaves no
//! resident memory behind: the fiber stacks kept for the next launch give back what the
//! threads touched below their top. (Alone in its test binary, so no other test's memory
//! moves the figure.)

use gpu_runtime::prelude::*;

/// 256 KB of locals per thread, in a block that synchronises.
#[gpu_kernel]
fn deep_locals(out: &mut [u32]) {
    let mut big = [0u64; 32768];
    let t = thread_idx().x as usize;
    big[t * 100] = t as u64 + 1;
    sync_threads();
    out[t] = big[t * 100] as u32;
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("resident pages");
    pages * 4096
}

#[test]
#[cfg(target_os = "linux")]
fn large_local_arrays_are_given_back_after_the_launch() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<u32>(256).expect("an array");
    // One launch first, so the runtime's own one-time memory is counted before.
    launch!(deep_locals[1, 256](&mut out)).expect("the launch");
    let before = resident_bytes();
    for _ in 0..3 {
        launch!(deep_locals[1, 256](&mut out)).expect("the launch");
    }
    let after = resident_bytes();
    let want: Vec<u32> = (1..=256).collect();
    assert_eq!(out.to_host().expect("copy"), want);
    // The threads touched 64 MB of locals in each launch.
    assert!(
        after < before + (16 << 20),
        "resident memory grew by {} MB",
        (after.saturating_sub(before)) >> 20
    );
    assert!(
        before < 48 << 20,
        "resident after the first launch: {} MB",
        before >> 20
    );
}
