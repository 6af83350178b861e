//! How the simulator schedules threads and blocks: the threads of a block that
//! synchronises are fibers, switched at waits and every few thousand loop iterations;
//! threads that all wait for each other forever are a deadlock, reported at once; blocks
//! run on several OS threads, and a failure is reported as a run of the blocks in order
//! would report it.

use gpu_runtime::prelude::*;

/// Threads 0 and 1 wait at different places: 0 at the barrier, 1 in a shuffle with lane 0.
#[gpu_kernel]
fn divergent_wait(a: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        sync_threads();
    } else {
        let v = shfl_sync(0b11, t, 0);
        a[1] = v;
    }
}

#[test]
fn threads_that_wait_for_each_other_are_a_deadlock_named_at_once() {
    let dev = Device::simulator();
    let mut a = dev.zeros::<u32>(4).expect("an array");
    let started = std::time::Instant::now();
    match launch!(divergent_wait[1, 2](&mut a)) {
        Err(GpuError::Deadlock { kernel, waits }) => {
            assert_eq!(kernel, "divergent_wait");
            assert_eq!(
                waits,
                "1 thread at sync_threads() (thread (0, 0, 0) of block (0, 0, 0)); 1 thread in \
                 a warp function with mask 0x00000003 (thread (1, 0, 0) of block (0, 0, 0))"
            );
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    // The device is usable afterwards.
    launch!(divergent_wait[1, 1](&mut a)).expect("one thread meets itself");
}

/// Thread 0 spins until the block's last thread has raised a flag, with no barrier
/// between: on the GPU every thread makes progress (independent thread scheduling), so
/// the loop ends; the simulator must let the last thread run while thread 0 spins.
#[gpu_kernel]
fn wait_for_the_last_thread(flag: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x;
    let last = block_dim().x - 1;
    if t == 0 {
        while atomic_add(flag, 0, 0u32) == 0 {}
        out[0] = 1;
    }
    if t == last {
        atomic_exch(flag, 0, 1u32);
    }
    sync_threads();
}

#[test]
fn a_thread_spinning_on_a_flag_lets_the_others_run() {
    let dev = Device::simulator();
    let mut flag = dev.zeros::<u32>(1).expect("an array");
    let mut out = dev.zeros::<u32>(1).expect("an array");
    launch!(wait_for_the_last_thread[1, 256](&mut flag, &mut out)).expect("the loop ends");
    assert_eq!(out.to_host().expect("copy"), [1]);
}

/// Every thread writes its global index; blocks 3 and 7 of each row of the grid also index
/// past the end.
#[gpu_kernel]
fn two_blocks_fail(out: &mut [u32]) {
    let i = grid_1d();
    let b = block_idx().x;
    if i < out.len() {
        out[i] = i as u32;
    }
    if (b == 3 || b == 7) && thread_idx().x == 5 {
        out[out.len() + b as usize] = 0;
    }
}

#[test]
fn the_lowest_failing_block_is_reported_and_the_blocks_below_it_ran() {
    let dev = Device::simulator();
    // 256 blocks of 256 threads: enough for the simulator to use every core.
    let n = 256 * 256;
    for _ in 0..20 {
        let mut out = dev.to_device(&vec![u32::MAX; n]).expect("an array");
        match launch!(two_blocks_fail[256, 256](&mut out)) {
            Err(GpuError::OutOfBounds { index, len, .. }) => {
                assert_eq!((index, len), (n + 3, n));
            }
            other => panic!("expected block 3's fault, got {other:?}"),
        }
        let host = out.to_host().expect("copy");
        assert!(
            host[..3 * 256]
                .iter()
                .enumerate()
                .all(|(i, &v)| v == i as u32),
            "a block below the failing one did not run to its end"
        );
    }
}

/// A grid-stride sum with one atomic per block, over a grid large enough to run on every
/// core, agrees with the host.
#[gpu_kernel]
fn block_sums(x: &[u32], total: &mut [u64]) {
    let mut cache = shared_array::<u64, 128>();
    let t = thread_idx().x as usize;
    let i = grid_1d();
    cache[t] = if i < x.len() { x[i] as u64 } else { 0 };
    sync_threads();
    let mut half = 64usize;
    while half > 0 {
        if t < half {
            cache[t] += cache[t + half];
        }
        sync_threads();
        half /= 2;
    }
    if t == 0 {
        atomic_add(total, 0, cache[0]);
    }
}

#[test]
fn blocks_on_several_threads_agree_with_the_host() {
    let dev = Device::simulator();
    let n = 1_000_003usize;
    let x: Vec<u32> = (0..n as u64)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u32 % 1000)
        .collect();
    let dx = dev.to_device(&x).expect("an array");
    let mut total = dev.zeros::<u64>(1).expect("an array");
    launch!(block_sums[n.div_ceil(128), 128](&dx, &mut total)).expect("the launch");
    let want: u64 = x.iter().map(|&v| v as u64).sum();
    assert_eq!(total.to_host().expect("copy"), [want]);
}

/// The most local memory a thread may have (512 KB), in threads of a block that
/// synchronises: each fiber's stack holds it.
#[gpu_kernel]
fn big_locals(out: &mut [u32]) {
    let mut big = [0u64; 65536];
    let t = thread_idx().x as usize;
    big[t * 500] = t as u64 + 1;
    sync_threads();
    big[65535] = big[t * 500];
    out[t] = big[65535] as u32;
}

#[test]
fn threads_that_synchronise_have_room_for_512_kb_of_locals() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<u32>(128).expect("an array");
    launch!(big_locals[1, 128](&mut out)).expect("the launch");
    let want: Vec<u32> = (1..=128).collect();
    assert_eq!(out.to_host().expect("copy"), want);
}

/// Thread 0 waits in a shuffle for lane 1, which waits at the barrier for thread 0: a
/// deadlock. Stopping it must not let thread 1 through the barrier to the fault after it.
#[gpu_kernel]
fn stuck_then_fault(a: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        a[0] = shfl_sync(0b11, t, 1);
    } else {
        sync_threads();
        a[a.len() + t as usize] = 1;
    }
}

#[test]
fn a_deadlock_is_reported_as_one_and_nothing_runs_past_it() {
    let dev = Device::simulator();
    let mut a = dev.zeros::<u32>(4).expect("an array");
    match launch!(stuck_then_fault[1, 2](&mut a)) {
        Err(GpuError::Deadlock { .. }) => {}
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

/// Thread 1 faults before the barrier; the others wait there, then spin on a flag only
/// thread 1 would raise. The fault must stop them at the barrier.
#[gpu_kernel]
fn fault_while_others_wait(a: &mut [u32]) {
    let t = thread_idx().x;
    if t == 1 {
        a[a.len()] = 1;
        atomic_exch(a, 0, 1u32);
    }
    sync_threads();
    while atomic_add(a, 0, 0u32) == 0 {}
}

#[test]
fn a_fault_stops_the_threads_waiting_at_a_barrier() {
    let dev = Device::simulator();
    let mut a = dev.zeros::<u32>(4).expect("an array");
    match launch!(fault_while_others_wait[1, 64](&mut a)) {
        Err(GpuError::OutOfBounds {
            index: 4, len: 4, ..
        }) => {}
        other => panic!("expected thread 1's fault, got {other:?}"),
    }
}

/// Thread 0 loops 3,000 times, then every thread faults: which fault is first depends on
/// when thread 0's time slice ends, which must not depend on earlier launches.
#[gpu_kernel]
fn first_to_fail(a: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        let mut i = 0u32;
        while i < 3000 {
            i += 1;
        }
    }
    a[a.len() + t as usize] = 0;
    sync_threads();
}

#[test]
fn which_thread_fails_first_does_not_depend_on_earlier_launches() {
    let dev = Device::simulator();
    let mut a = dev.zeros::<u32>(4).expect("an array");
    let mut seen = Vec::new();
    for _ in 0..3 {
        match launch!(first_to_fail[1, 2](&mut a)) {
            Err(GpuError::OutOfBounds { index, .. }) => seen.push(index),
            other => panic!("expected a fault, got {other:?}"),
        }
    }
    assert_eq!(seen, [4, 4, 4]);
}

/// Block 0 faults after a long loop; block 1 spins on a flag block 0 would raise after
/// the fault. In order, the launch ends with block 0's fault; on several OS threads block
/// 1 is already spinning, and must be stopped.
#[gpu_kernel]
fn handoff(flag: &mut [u32], out: &mut [u32]) {
    let (b, t) = (block_idx().x, thread_idx().x);
    if b == 0 && t == 0 {
        let mut i = 0u32;
        while i < 200_000 {
            i += 1;
        }
        out[out.len()] = 1;
        atomic_exch(flag, 0, 1u32);
    }
    if b == 1 && t == 0 {
        while atomic_add(flag, 0, 0u32) == 0 {}
    }
}

#[test]
fn blocks_past_a_failing_block_are_stopped() {
    let dev = Device::simulator();
    let mut flag = dev.zeros::<u32>(1).expect("an array");
    let mut out = dev.zeros::<u32>(4).expect("an array");
    match launch!(handoff[64, 256](&mut flag, &mut out)) {
        Err(GpuError::OutOfBounds {
            index: 4, len: 4, ..
        }) => {}
        other => panic!("expected block 0's fault, got {other:?}"),
    }
}

/// `active_mask()` in a branch half the warp takes: the GPU answers with the lanes in the
/// branch.
#[gpu_kernel]
fn active_in_a_branch(out: &mut [u32]) {
    let lane = thread_idx().x as usize;
    if lane < 16 {
        out[lane] = active_mask();
    }
    sync_threads();
}

#[test]
fn active_mask_in_a_branch_names_the_lanes_in_it() {
    let dev = Device::simulator();
    let mut out = dev.zeros::<u32>(32).expect("an array");
    launch!(active_in_a_branch[1, 32](&mut out)).expect("the launch");
    let host = out.to_host().expect("copy");
    assert!(host[..16].iter().all(|&m| m == 0xffff), "{host:x?}");
    assert!(host[16..].iter().all(|&m| m == 0), "{host:x?}");
}
