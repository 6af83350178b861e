//! [`group`]: the collectives a closure calls, queued together at its end. The NCCL side
//! of a group (NCCL's own group, the communicators it holds) is the CUDA backend's
//! (`nccl_group.rs`); this keeps how deep the groups nest and the simulated calls left for
//! the group's end.

use std::cell::RefCell;

use super::Communicator;
use crate::backend::cuda::nccl_group;
use crate::error::{GpuError, Result};

/// What a simulated call inside a group leaves for the group's end: the wait for the
/// other ranks and the write of the result.
pub(super) type Deferred = Box<dyn FnOnce() -> std::result::Result<(), String> + Send>;

/// The state of the open group of this thread.
#[derive(Default)]
struct GroupState {
    depth: usize,
    sim: Vec<(usize, &'static str, Deferred)>,
}

thread_local! {
    static GROUP: RefCell<GroupState> = RefCell::new(GroupState::default());
}

/// Communicators are made outside groups (NCCL would only queue their initialisation).
pub(super) fn refuse_in_group(operation: &str) -> Result<()> {
    if in_group() {
        return Err(GpuError::Collective {
            rank: 0,
            operation: operation.to_owned(),
            reason: "a communicator cannot be made inside `collective::group`; make it before"
                .to_owned(),
        });
    }
    Ok(())
}

/// Whether this thread is inside a group.
pub(super) fn in_group() -> bool {
    GROUP.with(|g| g.borrow().depth > 0)
}

/// Run `f`, a simulated call's wait and write, now, or at the end of this thread's group.
pub(super) fn run_or_defer(comm: &Communicator, name: &'static str, f: Deferred) -> Result<()> {
    if in_group() {
        GROUP.with(|g| g.borrow_mut().sim.push((comm.rank(), name, f)));
        return Ok(());
    }
    f().map_err(|r| comm.error(name, r))
}

/// Run `f`, queuing the collectives it calls together (NCCL's `ncclGroupStart` /
/// `ncclGroupEnd`): they start at the end of the group, all at once. This is how one
/// thread drives several ranks of one process, and how two ranks exchange with `send` and
/// `recv` both ways. Groups nest; only the outermost one's end queues the work.
///
/// Inside a group, wait for nothing a collective of the group produces (no
/// `to_host` of its result, no synchronisation): it has not run yet.
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    GROUP.with(|g| g.borrow_mut().depth += 1);
    // Ends the group when `f` panics too, so the thread's state stays consistent.
    struct Unwinding(bool);
    impl Drop for Unwinding {
        fn drop(&mut self) {
            if self.0 {
                let _ = end_group();
            }
        }
    }
    let mut unwinding = Unwinding(true);
    let result = f();
    unwinding.0 = false;
    let ended = end_group();
    let r = result?;
    ended.map(|()| r)
}

/// Close one level of the group; at the outermost, queue what it holds: NCCL's work
/// first, then the simulated calls' waits and writes.
fn end_group() -> Result<()> {
    let state = GROUP.with(|g| {
        let mut g = g.borrow_mut();
        g.depth -= 1;
        (g.depth == 0).then(|| std::mem::take(&mut *g))
    });
    let Some(state) = state else {
        return Ok(());
    };
    let mut first_error: Option<GpuError> =
        nccl_group::end_group()
            .into_iter()
            .next()
            .map(|(rank, reason)| GpuError::Collective {
                rank,
                operation: "group".to_owned(),
                reason,
            });
    for (rank, name, f) in state.sim {
        if let Err(reason) = f() {
            first_error.get_or_insert(GpuError::Collective {
                rank,
                operation: name.to_owned(),
                reason,
            });
        }
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
