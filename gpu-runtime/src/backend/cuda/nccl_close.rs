//! Closing a rank's NCCL communicator: when its `Communicator` drops, on that thread, its
//! queued operations are waited for (up to its timeout), then it is finalised and
//! destroyed, or aborted where that cannot finish; while an open group holds it, its last
//! owner's drop closes it instead.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::CudaContext;

use super::nccl::{Nccl, RawComm, IN_PROGRESS, SUCCESS};
use super::nccl_comm::{keep_forever, make_current, NcclComm, Pending};
use crate::backend::store::deadline_after;

impl NcclComm {
    /// Close the communicator now, on this thread, when its `Communicator` is dropped:
    /// wait (up to the timeout) for its operations, then finalise and destroy it (abort
    /// where that cannot finish). Left to the last owner's drop while a group holds it or
    /// this thread's NCCL group is open. Closing here, not wherever the last `Arc` goes
    /// (the watchdog may hold one for a moment), keeps NCCL's teardown before the
    /// program's own end.
    pub(crate) fn shutdown(&self) {
        if super::nccl_group::group_open_here() {
            return;
        }
        if let Some(closing) = self.closing(true) {
            closing.close();
        }
    }

    /// Take the communicator and its queued work out, for closing: `None` when it is gone
    /// already, or (with `unless_grouped`) while a group holds it.
    fn closing(&self, unless_grouped: bool) -> Option<Closing> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if unless_grouped && state.in_groups > 0 {
            return None;
        }
        let Some(raw) = state.raw.take() else {
            drop(state);
            self.forget_pending();
            return None;
        };
        let failed = state.failed.is_some()
            || self
                .clique
                .as_ref()
                .is_some_and(|c| c.failed.get().is_some());
        state
            .failed
            .get_or_insert_with(|| "the communicator was closed".to_owned());
        drop(state);
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()));
        Some(Closing {
            nccl: self.nccl,
            ctx: self.ctx.clone(),
            raw,
            timeout: self.timeout,
            pending,
            failed,
            in_clique: self.clique.is_some(),
        })
    }
}

impl Drop for NcclComm {
    /// Close what [`NcclComm::shutdown`] left open; on a thread whose NCCL group is open
    /// (NCCL would only queue the finalisation in it), on a thread of its own.
    fn drop(&mut self) {
        let Some(closing) = self.closing(false) else {
            return;
        };
        if super::nccl_group::group_open_here() {
            let _ = std::thread::Builder::new()
                .name("gpu-nccl-close".into())
                .spawn(move || closing.close());
        } else {
            closing.close();
        }
    }
}

/// What closing a communicator needs, apart from the communicator.
struct Closing {
    nccl: &'static Nccl,
    ctx: Arc<CudaContext>,
    raw: RawComm,
    timeout: Duration,
    pending: VecDeque<Pending>,
    failed: bool,
    in_clique: bool,
}

// SAFETY: the raw communicator is owned by this value alone (its `NcclComm` is gone), and
// used on one thread.
unsafe impl Send for Closing {}

impl Closing {
    fn close(mut self) {
        let _ = make_current(&self.ctx);
        let nccl = self.nccl;
        let raw = self.raw;
        let deadline = deadline_after(self.timeout);
        // Its operations first (their arrays are kept until then).
        while !self.failed && Instant::now() < deadline {
            match self.pending.front() {
                None => break,
                Some(p) if p.event.is_complete().unwrap_or(true) => {
                    self.pending.pop_front();
                }
                Some(_) => std::thread::sleep(Duration::from_micros(200)),
            }
        }
        let done = self.pending.is_empty();
        // SAFETY: the communicator is live and owned here alone.
        if self.failed || !done || unsafe { nccl.async_error(raw) } != SUCCESS {
            // Failed, work left over, or still initialising (which allows no
            // finalisation).
            // SAFETY: as above; not used after this.
            unsafe { nccl.abort(raw) };
            if self.in_clique {
                keep_forever(self.pending.drain(..).map(|p| p._kept));
            }
            return;
        }
        // SAFETY: as above.
        let mut code = unsafe { nccl.finalize(raw) };
        while code == IN_PROGRESS && Instant::now() < deadline {
            std::thread::sleep(Duration::from_micros(100));
            // SAFETY: as above.
            code = unsafe { nccl.async_error(raw) };
        }
        if code == SUCCESS {
            // SAFETY: finalised, owned here alone, not used after this.
            unsafe { nccl.destroy(raw) };
        } else {
            // SAFETY: as above.
            unsafe { nccl.abort(raw) };
        }
    }
}
