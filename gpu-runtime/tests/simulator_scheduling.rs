//! How the simulator schedules threads and blocks: the threads of a block that
//! synchronises are fibers, switched at waits and every few thousand loop iterations;
//! threads that wait for each other forever are a deadlock, reported at once; blocks run
//! on several OS threads, and a failure is reported as a run of the blocks in order would
//! report it.

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
