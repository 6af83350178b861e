//! The simulator's deadline: a launch that runs longer than
//! [`SIM_TIMEOUT_ENV`](crate::SIM_TIMEOUT_ENV) seconds (off when unset) stops with
//! [`GpuError::Timeout`](crate::GpuError::Timeout), so an endless loop in a kernel can be
//! stopped. The attribute puts a [`sim_tick`] at the top of every loop body; threads
//! waiting at barriers are stopped once the thread that timed out fails (threads that
//! only wait for each other are a deadlock, found at once without a deadline).

use std::cell::Cell;
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
}

/// The deadline of the launch running on this thread, if any.
pub(crate) fn current() -> Option<Current> {
    DEADLINE.with(Cell::get)
}

/// Give a worker thread the launch's deadline.
pub(crate) fn inherit(d: Option<Current>) {
    DEADLINE.with(|c| c.set(d));
}

/// The deadline of one launch, on the launching thread; cleared when dropped.
pub(crate) struct Deadline {
    previous: Option<Current>,
}

impl Deadline {
    pub(crate) fn start(kernel: &'static str) -> Deadline {
        let previous = current();
        let timeout = crate::host::env::seconds(crate::SIM_TIMEOUT_ENV);
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
/// past its deadline, and lets the other threads of a block that runs as fibers take their
/// turn (so a thread spinning on a flag another thread sets does not wait forever). Reads
/// the clock once every 4096 calls.
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

#[cold]
fn check() {
    if let Some(d) = current() {
        if Instant::now() >= d.until {
            std::panic::resume_unwind(Box::new(SimFault::Timeout {
                kernel: d.kernel,
                seconds: d.seconds,
            }));
        }
    }
}
