//! Submitting NCCL operations, at once or in this thread's open group, and the state of
//! that group next to the communicators it holds.
//!
//! Inside a group (the host API's `collective::group`) the first NCCL operation opens
//! NCCL's group (`ncclGroupStart`); each communicator an operation joins is held, with its
//! stream and the arrays the operation uses, until the outermost group ends
//! ([`end_group`]): then `ncclGroupEnd` queues the work, and each held communicator is
//! waited for until NCCL has queued its part and is watched from then on. Outside a group
//! an operation is queued, waited for and watched in the call.

use std::cell::RefCell;
use std::sync::Arc;

use cudarc::driver::sys::CUstream;

use super::handles::OwnedStream;
use super::nccl::{Nccl, NcclCall, SUCCESS};
use super::nccl_comm::{make_current, NcclComm};
use crate::backend::store::deadline_after;
use crate::keep_alive::Kept;

/// The NCCL side of this thread's open group.
#[derive(Default)]
struct GroupState {
    /// NCCL communicators with operations in the group, with their stream (kept alive
    /// until the group has queued its work).
    held: Vec<(Arc<NcclComm>, CUstream, Option<Arc<OwnedStream>>)>,
    /// The arrays the group's NCCL operations use, kept until they are queued.
    kept: Vec<Kept>,
    /// NCCL, once this group has called `ncclGroupStart`.
    open: Option<&'static Nccl>,
}

thread_local! {
    static GROUP: RefCell<GroupState> = RefCell::new(GroupState::default());
}

/// Whether this thread has an open group that has started NCCL's (`ncclGroupStart`).
pub(crate) fn group_open_here() -> bool {
    GROUP
        .try_with(|g| g.try_borrow().map_or(true, |g| g.open.is_some()))
        .unwrap_or(false)
}

/// Make one NCCL call on `comm`, once `matched` (the ledger's check) agrees: at once
/// (waiting until NCCL has queued it, then watching it), or, when `grouped` (this thread
/// is inside a group), inside the open group (queued at its end). `keep_stream` and `kept`
/// are the stream and the arrays to keep alive until the work is queued (`kept` until it
/// is done).
///
/// # Safety
///
/// As for [`Nccl::run`] of `call`, but for the communicator, which this takes care of:
/// the arrays behind `call`'s buffers are those `kept` owns.
pub(crate) unsafe fn submit(
    comm: &Arc<NcclComm>,
    name: &str,
    grouped: bool,
    (keep_stream, kept): (Option<Arc<OwnedStream>>, Vec<Kept>),
    matched: impl FnOnce() -> Result<(), String>,
    call: NcclCall,
) -> Result<(), String> {
    make_current(&comm.ctx)?;
    if grouped {
        open_group(comm.nccl)?;
    }
    let nccl = comm.nccl;
    // SAFETY: `NcclComm::call` hands the communicator locked; the rest is the caller's
    // contract.
    let run = move |raw| unsafe { nccl.run(&call, raw) };
    let (entered, called) = comm.call(name, grouped, matched, run);
    if grouped {
        // Held by the group whatever the call's result, once NCCL saw it (`NcclComm::call`
        // says why); a call refused before NCCL left nothing to hold.
        if entered {
            GROUP.with(|g| {
                let mut g = g.borrow_mut();
                g.held.push((comm.clone(), call.stream, keep_stream));
                g.kept.extend(kept);
            });
        }
        return called;
    }
    called?;
    comm.track(call.stream, Arc::new(kept))
}

fn open_group(nccl: &'static Nccl) -> Result<(), String> {
    GROUP.with(|g| {
        let mut g = g.borrow_mut();
        if g.open.is_none() {
            match nccl.group_start() {
                SUCCESS => g.open = Some(nccl),
                code => return Err(nccl.describe(code, None)),
            }
        }
        Ok(())
    })
}

/// At the end of this thread's outermost group: queue what the group holds
/// (`ncclGroupEnd`), then wait until each held communicator has queued its part and watch
/// it. Each failure, with its communicator's rank.
pub(crate) fn end_group() -> Vec<(usize, String)> {
    let mut state = GROUP.with(|g| std::mem::take(&mut *g.borrow_mut()));
    let mut failures = Vec::new();
    let Some(nccl) = state.open else {
        return failures;
    };
    // SAFETY: every communicator of the group is live (held in `state.held`) and
    // marked as in a group, so the watchdog leaves it alone; its lock is not held by
    // this thread, and NCCL's group end touches only this thread's queued work.
    let code = unsafe { nccl.group_end() };
    // The group's arrays, kept until every communicator's event is seen complete.
    let kept = Arc::new(std::mem::take(&mut state.kept));
    let deadline = deadline_after(
        state
            .held
            .iter()
            .map(|(c, ..)| c.timeout)
            .max()
            .unwrap_or_default(),
    );
    for (c, stream, _) in &state.held {
        let r = c
            .finish_group(deadline, code)
            .and_then(|()| c.track(*stream, kept.clone()));
        if let Err(reason) = r {
            failures.push((c.rank, reason));
        }
    }
    failures
}
