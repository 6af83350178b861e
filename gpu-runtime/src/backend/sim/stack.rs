//! How much stack a simulated thread has, and on which stack a launch runs.
//!
//! Every kernel's local memory per thread is bounded at compile time (`def/stack.rs`: its
//! locals and its deepest chain of device functions, at most a GPU thread's 512 KB). A
//! simulated thread needs that bound plus its frames' fixed part. Measured by
//! `tests/simulator_stack.rs` (x86-64 Linux, rustc 1.88 and later): a debug build uses the
//! bound plus 9 KB for a 256 KB array, a 512 KB one and a chain of three functions,
//! release the bound plus 3.5 KB, a kernel without arrays less than 16 KB in both. A
//! thread is given [`FACTOR`] times the bound plus [`FIXED`]: twice the measured growth
//! and sixteen times the measured fixed part, for frames the test does not have (deep
//! chains of scalar device functions, prints).
//!
//! Where the stacks are:
//! - A block of a kernel that never waits runs its threads one after another on one OS
//!   thread: the launching thread when `backend/stack_room.rs` says it has the allowance left (so a
//!   launch from a thread with a small stack, from deep recursion or from a coroutine's
//!   stack does not overflow it), else on worker threads made with
//!   [`WORKER_STACK_BYTES`] or the allowance, whichever is larger (where the stack left
//!   cannot be known, always there: a thread costs tens of microseconds).
//! - A block that waits runs its threads as fibers of [`fiber::STACK_BYTES`] each (4 MB,
//!   above the allowance of the largest bound: asserted below), on those same threads.
//!
//! The memory ceiling: at most `FIBER_STACKS_AT_ONCE` fibers exist at once over a launch
//! (16,384, each 4 MB of address space), of which only the pages threads touch are
//! memory: up to the bound per thread. Workers are capped so that the threads running at
//! once touch at most [`RESIDENT_BYTES`]; a block alone over it (never, with bounds of at
//! most 512 KB and 1,024 threads a block, or 4,096 threads of a cooperative grid) and a
//! stack or worker the system refuses are [`GpuError::InvalidLaunch`] naming the kernel
//! and the bytes.

use super::fiber;
use crate::def::stack::LOCAL_BYTES_PER_THREAD;
use crate::error::GpuError;

/// A simulated thread's stack per byte of its kernel's bound.
pub(crate) const FACTOR: usize = 2;

/// A simulated thread's stack beside its kernel's bound.
pub(crate) const FIXED: usize = 256 * 1024;

/// Stack of each OS thread that runs blocks, as a main thread's, when the allowance is
/// smaller.
pub(crate) const WORKER_STACK_BYTES: usize = 8 * 1024 * 1024;

/// The most stack memory the threads of one launch running at once may touch.
pub(crate) const RESIDENT_BYTES: u64 = 8 << 30;

const _: () = assert!(
    fiber::STACK_BYTES >= FACTOR * LOCAL_BYTES_PER_THREAD as usize + FIXED,
    "a fiber's stack must hold the largest kernel a GPU thread can run"
);

/// The stack a thread of a kernel with this bound is given.
pub(crate) fn allowance(bound: u64) -> usize {
    usize::try_from(bound)
        .unwrap_or(usize::MAX)
        .saturating_mul(FACTOR)
        .saturating_add(FIXED)
}

/// How many blocks of `threads` fibers, each touching up to `bound` bytes, may run at
/// once within [`RESIDENT_BYTES`]; an error naming the kernel when not even one may.
pub(crate) fn fiber_blocks_at_once(
    kernel: &'static str,
    threads: usize,
    bound: u64,
) -> Result<usize, GpuError> {
    let per_block = (threads as u64).saturating_mul(bound.saturating_add(FIXED as u64));
    match usize::try_from(RESIDENT_BYTES / per_block.max(1)) {
        Ok(0) => Err(GpuError::InvalidLaunch {
            kernel,
            reason: format!(
                "{threads} simulated threads of up to {bound} bytes of locals each would take \
                 {per_block} bytes of stack at once, more than the simulator's {RESIDENT_BYTES}"
            ),
        }),
        Ok(n) => Ok(n),
        Err(_) => Ok(usize::MAX),
    }
}

/// Whether a launch whose threads need `allowance` bytes may run on the calling thread:
/// only where the stack left is known to be enough.
pub(crate) fn fits_here(allowance: usize) -> bool {
    crate::backend::stack_room::remaining().is_some_and(|left| left >= allowance)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowance_grows_with_the_bound_and_saturates() {
        assert_eq!(allowance(0), FIXED);
        assert_eq!(allowance(1000), 2000 + FIXED);
        assert_eq!(allowance(u64::MAX), usize::MAX);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_stack_left_shrinks_on_a_smaller_thread() {
        let remaining = crate::backend::stack_room::remaining;
        let here = remaining().expect("Linux says");
        assert!(here > 0);
        let small = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(remaining)
            .expect("a thread")
            .join()
            .expect("no panic")
            .expect("Linux says");
        assert!(small < 256 * 1024, "{small}");
        assert!(!fits_here(usize::MAX));
    }

    #[test]
    fn a_block_over_the_ceiling_is_an_error_naming_the_bytes() {
        assert!(fiber_blocks_at_once("k", 1024, 512 * 1024).unwrap() >= 8);
        match fiber_blocks_at_once("k", 1 << 20, 1 << 30) {
            Err(GpuError::InvalidLaunch { kernel, reason }) => {
                assert_eq!(kernel, "k");
                assert!(reason.contains("1048576 simulated threads"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
}
