//! What stops a running simulated thread from outside: the launch's deadline, and the
//! failure of a lower-numbered block.
//!
//! A launch that runs longer than [`TIMEOUT_ENV`](crate::env::TIMEOUT_ENV) seconds
//! (off when unset) stops with [`GpuError::Timeout`](crate::GpuError::Timeout), so an
//! endless loop in a kernel can be stopped. The attribute puts a [`sim_tick`] at the top
//! of every loop body; threads waiting at barriers stop once the thread that timed out
//! fails. (Threads that only wait for each other are a deadlock, found at once without a
//! deadline; a thread that spins forever is found only by the deadline.) A block that
//! runs beside a lower-numbered block that failed is stopped at its next check, since a
//! run of the blocks in order would never have started it.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::SimFault;

/// When the running launch must stop, and the kernel's name.
#[derive(Clone, Copy)]
pub(crate) struct Current {
    until: Instant,
    kernel: &'static str,
    seconds: f64,
}

thread_local! {
    static DEADLINE: Cell<Option<Current>> = const { Cell::new(None) };
    static TICKS: Cell<u32> = const { Cell::new(0) };
    static CANCEL: Cell<Option<(*const AtomicU64, u64)>> = const { Cell::new(None) };
}

/// The loop ticks of the running simulated thread (each fiber keeps its own, so where
/// its time slices end depends on nothing but its own run).
pub(crate) fn ticks() -> u32 {
    TICKS.with(Cell::get)
}

/// Set the running simulated thread's loop ticks (0 when it starts).
pub(crate) fn set_ticks(n: u32) {
    TICKS.with(|t| t.set(n));
}

/// While alive, block number `block` of a launch whose blocks run on several OS threads
/// stops at its next check once `lowest_failure` (the lowest-numbered failing block so
/// far) is below it.
pub(crate) struct CancelWatch<'a> {
    _lowest_failure: std::marker::PhantomData<&'a AtomicU64>,
}

impl<'a> CancelWatch<'a> {
    pub(crate) fn new(lowest_failure: &'a AtomicU64, block: u64) -> CancelWatch<'a> {
        CANCEL.with(|c| c.set(Some((lowest_failure, block))));
        CancelWatch {
            _lowest_failure: std::marker::PhantomData,
        }
    }
}

impl Drop for CancelWatch<'_> {
    fn drop(&mut self) {
        CANCEL.with(|c| c.set(None));
    }
}

/// The deadline of the launch running on this thread, if any.
pub(crate) fn current() -> Option<Current> {
    DEADLINE.with(Cell::get)
}

/// Give a worker thread the launch's deadline.
pub(crate) fn inherit(d: Option<Current>) {
    DEADLINE.with(|c| c.set(d));
}

/// Once per process, if the timeout's name before 0.2 is set: a warning that it is no
/// longer read, naming the new one.
fn warn_old_name() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    if std::env::var_os(crate::env::OLD_SIM_TIMEOUT_ENV).is_some() {
        ONCE.call_once(|| {
            log::warn!(
                "{} is no longer read: the launch timeout is {} (seconds) since 0.2",
                crate::env::OLD_SIM_TIMEOUT_ENV,
                crate::env::TIMEOUT_ENV
            );
        });
    }
}

/// The deadline of one launch, on the launching thread; cleared when dropped.
pub(crate) struct Deadline {
    previous: Option<Current>,
}

impl Deadline {
    pub(crate) fn start(kernel: &'static str) -> Deadline {
        let previous = current();
        let timeout = crate::env::seconds(crate::env::TIMEOUT_ENV);
        if timeout.is_none() {
            warn_old_name();
        }
        inherit(timeout.map(|seconds| Current {
            until: Instant::now() + Duration::from_secs_f64(seconds),
            kernel,
            seconds,
        }));
        Deadline { previous }
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        inherit(self.previous);
    }
}

/// A loop's back edge in a simulated kernel: stops the thread once the launch has run
/// past its deadline or a lower-numbered block has failed, and lets the other threads of
/// a block that runs as fibers take their turn (so there a thread spinning on a flag
/// another thread of its block sets does not wait forever; in a kernel with no barrier or
/// warp function the threads run one after another, and it does). Reads the clock once
/// every 4096 calls.
#[inline]
pub fn sim_tick() {
    let n = TICKS.with(|t| {
        let n = t.get().wrapping_add(1);
        t.set(n);
        n
    });
    if n.is_multiple_of(4096) {
        check();
        if super::fiber::in_fiber() {
            super::fiber::suspend(super::fiber::Wait::Slice);
        }
    }
}

/// Between two simulated threads (or blocks) of a launch: stops it once it has run past
/// its deadline or a lower-numbered block has failed, so a kernel without loops stops
/// too. Reads the clock once every 4096 calls; never suspends.
#[inline]
pub(crate) fn between_threads() {
    let n = TICKS.with(|t| {
        let n = t.get().wrapping_add(1);
        t.set(n);
        n
    });
    if n.is_multiple_of(4096) {
        check();
    }
}

/// The launch's kernel and timeout if it has run past its deadline: checked before each
/// block whose threads run as fibers (which keep their own tick counts).
pub(crate) fn past() -> Option<(&'static str, f64)> {
    current()
        .filter(|d| Instant::now() >= d.until)
        .map(|d| (d.kernel, d.seconds))
}

#[cold]
fn check() {
    if let Some((lowest_failure, block)) = CANCEL.with(Cell::get) {
        // SAFETY: set by a `CancelWatch`, which borrows the atomic for as long as the
        // pointer is set (it clears it when dropped).
        if unsafe { &*lowest_failure }.load(Ordering::Relaxed) < block {
            std::panic::resume_unwind(Box::new(SimFault::Cancelled));
        }
    }
    if let Some(d) = current() {
        if Instant::now() >= d.until {
            std::panic::resume_unwind(Box::new(SimFault::Timeout {
                kernel: d.kernel,
                seconds: d.seconds,
            }));
        }
    }
}
