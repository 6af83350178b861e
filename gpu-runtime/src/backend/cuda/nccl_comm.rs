//! One rank's NCCL communicator: made non-blocking, so no NCCL call waits for the other
//! ranks without a deadline, and watched, so a rank that fails or disappears ends in an
//! error instead of a hang.
//!
//! - Every NCCL call with a communicator is made under its `state` lock (NCCL's
//!   communicators are not thread-safe), and after the call the rank polls
//!   `ncclCommGetAsyncError` until NCCL has queued the work, up to the deadline. While an
//!   open group holds operations of a communicator, only that group's thread may use it
//!   (the group's end, which runs the operations, happens outside the lock).
//! - After an operation is queued, an event is recorded behind it. The watchdog (one
//!   thread per process) polls the oldest event of each communicator; when one is not
//!   complete by its deadline, or NCCL reports an error, it aborts the communicator
//!   (`ncclCommAbort`: its kernels stop, so the streams, and every synchronisation
//!   waiting on them, move on) and keeps the reason, which every later call returns. An
//!   abort waits for the end of a group that holds the communicator.
//! - The communicators of one process (a [`Clique`]) fail together: NCCL's kernels of one
//!   rank use the other ranks' arrays directly, so none is left running when one stops.
//! - A communicator is closed when its `Communicator` drops (`nccl_close.rs`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

use super::handles::OwnedEvent;
use super::nccl::{Nccl, NcclResult, RawComm, RawUniqueId, IN_PROGRESS, SUCCESS};
use crate::backend::store::deadline_after;
use crate::keep_alive::Kept;
use cudarc::driver::CudaContext;

/// A rank's NCCL communicator.
pub(crate) struct NcclComm {
    pub nccl: &'static Nccl,
    /// The context of the rank's device, current for every call (NCCL finds its device
    /// there).
    pub ctx: Arc<CudaContext>,
    pub rank: usize,
    pub world: usize,
    pub timeout: Duration,
    pub(super) state: Mutex<State>,
    /// An event after each queued operation not yet seen complete, with its deadline and
    /// the arrays it uses, kept until the event is seen complete: within one process a
    /// peer's kernels reach them too, which their own streams do not order.
    pub(super) pending: Mutex<VecDeque<Pending>>,
    /// The communicators of the same process's set, for those made by `init_all`.
    pub clique: Option<Arc<Clique>>,
    /// How many operations were tracked, and how many were seen complete.
    queued: AtomicU64,
    completed: AtomicU64,
}

/// A queued operation the watchdog waits for.
pub(super) struct Pending {
    pub(super) event: OwnedEvent,
    deadline: Instant,
    pub(super) _kept: Arc<Vec<Kept>>,
}

/// The arrays of operations that failed within one process, never freed: a peer's kernel
/// that was still running when the operation failed may reach them. (Memory lost on a
/// failure only.)
pub(super) fn keep_forever(kept: impl IntoIterator<Item = Arc<Vec<Kept>>>) {
    static KEPT: Mutex<Vec<Arc<Vec<Kept>>>> = Mutex::new(Vec::new());
    KEPT.lock().unwrap_or_else(|p| p.into_inner()).extend(kept);
}

/// The communicators one `init_all` made, which fail together.
pub(crate) struct Clique {
    /// Why the set failed, once it has.
    pub failed: OnceLock<String>,
    members: Mutex<Vec<Weak<NcclComm>>>,
}

impl Clique {
    /// Fail every member with `why` (the first reason is kept), aborting each that no
    /// open group holds. Called with no communicator's lock held.
    pub(crate) fn fail(&self, why: &str) -> String {
        let first = self.failed.get_or_init(|| why.to_owned()).clone();
        let members: Vec<Arc<NcclComm>> = self
            .members
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for m in &members {
            m.abort_with(format!("another rank of this process failed: {first}"));
        }
        drop_elsewhere(members);
        first
    }
}

pub(super) struct State {
    /// The communicator; `None` once aborted or destroyed.
    pub(super) raw: Option<RawComm>,
    pub(super) failed: Option<String>,
    /// How many operations of open groups this communicator holds, and the thread whose
    /// group it is.
    pub(super) in_groups: usize,
    group_thread: Option<ThreadId>,
}

// SAFETY: the raw communicator is used only under `state`'s lock, one thread at a time,
// or, between the calls of an open group and its end, only by that group's thread (the
// lock refuses every other thread, and the watchdog leaves it alone); that is what NCCL
// requires. The events are used under `pending`'s lock.
unsafe impl Send for NcclComm {}
// SAFETY: as above.
unsafe impl Sync for NcclComm {}

/// The state of a communicator, locked for an NCCL call.
pub(crate) struct Locked<'c> {
    comm: &'c NcclComm,
    state: MutexGuard<'c, State>,
}

impl NcclComm {
    /// Initialise one communicator per device context of `devices`, ranks in that order, in
    /// one process: the inits are grouped, as `ncclCommInitAll` groups them, then waited for.
    pub(crate) fn init_all(
        nccl: &'static Nccl,
        devices: &[Arc<CudaContext>],
        timeout: Duration,
    ) -> Result<Vec<Arc<NcclComm>>, String> {
        let id = nccl.unique_id()?;
        let world = devices.len();
        let mut raws = Vec::with_capacity(world);
        check(nccl, nccl.group_start(), None)?;
        let mut failure = None;
        for (rank, d) in devices.iter().enumerate() {
            if let Err(e) = make_current(d) {
                failure = Some(e);
                break;
            }
            // SAFETY: the device's context was made current just above.
            match unsafe { nccl.init_rank(world, &id, rank) } {
                Ok(raw) => raws.push(raw),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        // SAFETY: the communicators of the group are the fresh ones in `raws`, used by no
        // other thread.
        let ended = unsafe { nccl.group_end() };
        let clique = Arc::new(Clique {
            failed: OnceLock::new(),
            members: Mutex::new(Vec::new()),
        });
        let comms: Vec<Arc<NcclComm>> = raws
            .into_iter()
            .zip(devices)
            .enumerate()
            .map(|(rank, (raw, d))| {
                let mut c = NcclComm::new(nccl, d, raw, rank, world, timeout);
                c.clique = Some(clique.clone());
                Arc::new(c)
            })
            .collect();
        *clique.members.lock().unwrap_or_else(|p| p.into_inner()) =
            comms.iter().map(Arc::downgrade).collect();
        if let Some(e) = failure {
            return Err(e);
        }
        check(nccl, ended, None)?;
        let deadline = deadline_after(timeout);
        for c in &comms {
            c.lock()?.wait_ready(deadline, "initialisation")?;
        }
        comms.iter().for_each(watch);
        Ok(comms)
    }

    /// Initialise rank `rank` of `world` on the device of context `device` with `id`
    /// (shared by every rank).
    pub(crate) fn init_rank(
        nccl: &'static Nccl,
        device: &Arc<CudaContext>,
        id: &RawUniqueId,
        rank: usize,
        world: usize,
        timeout: Duration,
    ) -> Result<Arc<NcclComm>, String> {
        make_current(device)?;
        // SAFETY: the device's context was made current just above.
        let raw = unsafe { nccl.init_rank(world, id, rank) }?;
        let comm = Arc::new(NcclComm::new(nccl, device, raw, rank, world, timeout));
        comm.lock()?
            .wait_ready(deadline_after(timeout), "initialisation")
            .map_err(|e| {
                format!(
                    "{e}; every one of the {world} ranks must start and reach this point (the \
                     deadline is GPU_RUNTIME_COMM_TIMEOUT or CommOptions::timeout)"
                )
            })?;
        watch(&comm);
        Ok(comm)
    }

    fn new(
        nccl: &'static Nccl,
        device: &Arc<CudaContext>,
        raw: RawComm,
        rank: usize,
        world: usize,
        timeout: Duration,
    ) -> NcclComm {
        NcclComm {
            nccl,
            ctx: device.clone(),
            rank,
            world,
            timeout,
            state: Mutex::new(State {
                raw: Some(raw),
                failed: None,
                in_groups: 0,
                group_thread: None,
            }),
            pending: Mutex::new(VecDeque::new()),
            clique: None,
            queued: AtomicU64::new(0),
            completed: AtomicU64::new(0),
        }
    }

    /// The communicator, locked for a call; an error once it has failed, or while an open
    /// group of another thread holds it.
    pub(crate) fn lock(&self) -> Result<Locked<'_>, String> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(why) = &state.failed {
            return Err(why.clone());
        }
        if state.raw.is_none() {
            return Err("the communicator was destroyed".to_owned());
        }
        let here = std::thread::current().id();
        if state.in_groups > 0 && state.group_thread != Some(here) {
            return Err(
                "an open `collective::group` of another thread holds this communicator: NCCL \
                 allows one thread at a time"
                    .to_owned(),
            );
        }
        let mut locked = Locked { comm: self, state };
        if let Some(why) = self.clique.as_ref().and_then(|c| c.failed.get()) {
            let why = format!("another rank of this process failed: {why}");
            locked.fail(why.clone());
            return Err(why);
        }
        Ok(locked)
    }

    /// Make one call: `matched` (the ledger's check, numbered under the lock so that the
    /// numbers follow NCCL's order), then `call`; then, unless `grouped`, wait until NCCL
    /// has queued it. A failure fails the communicator and its clique. Also says whether
    /// the call joined this thread's group (NCCL saw it, in a group).
    pub(crate) fn call(
        &self,
        operation: &str,
        grouped: bool,
        matched: impl FnOnce() -> Result<(), String>,
        call: impl FnOnce(RawComm) -> NcclResult,
    ) -> (bool, Result<(), String>) {
        let mut locked = match self.lock() {
            Ok(l) => l,
            Err(why) => return (false, Err(why)),
        };
        if let Err(why) = matched() {
            drop(locked);
            return (false, Err(self.spread(why)));
        }
        let code = call(locked.raw());
        if grouped {
            // Whatever the result, NCCL may have joined the communicator to this thread's
            // group: it stays held (not aborted) until the group's end.
            locked.enter_group();
        }
        let result = locked.check(code, operation).and_then(|()| {
            if grouped {
                Ok(())
            } else {
                locked.wait_ready(deadline_after(self.timeout), operation)
            }
        });
        drop(locked);
        (grouped, result.map_err(|why| self.spread(why)))
    }

    /// After a failure of this communicator: fail its clique too; the reason to report.
    fn spread(&self, why: String) -> String {
        match &self.clique {
            Some(c) => {
                c.fail(&why);
                why
            }
            None => why,
        }
    }

    /// After the end of a group that held an operation of this communicator (`ended`:
    /// what `ncclGroupEnd` returned): wait until NCCL has queued the work.
    pub(crate) fn finish_group(&self, deadline: Instant, ended: NcclResult) -> Result<(), String> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let mut locked = Locked { comm: self, state };
        let result = if let Some(why) = locked.state.failed.clone() {
            Err(why)
        } else if locked.state.raw.is_none() {
            Err("the communicator was destroyed".to_owned())
        } else if ended != SUCCESS && ended != IN_PROGRESS {
            locked.check(ended, "the end of a group")
        } else {
            locked.wait_ready(deadline, "a group's operations")
        };
        locked.leave_group();
        drop(locked);
        result.map_err(|why| self.spread(why))
    }

    /// Why the communicator failed, if it has.
    pub(crate) fn failure(&self) -> Option<String> {
        let state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.failed.clone()
    }

    /// Record an event behind the operation just queued on `stream`, for the watchdog.
    pub(crate) fn track(
        &self,
        stream: cudarc::driver::sys::CUstream,
        kept: Arc<Vec<Kept>>,
    ) -> Result<(), String> {
        let event = match OwnedEvent::record(&self.ctx, stream) {
            Ok(e) => e,
            Err(e) => {
                // Nothing will say when the work is done: keep its arrays.
                keep_forever([kept]);
                return Err(e.to_string());
            }
        };
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_back(Pending {
                event,
                deadline: deadline_after(self.timeout),
                _kept: kept,
            });
        self.queued.fetch_add(1, Ordering::SeqCst);
        wake_watchdog();
        Ok(())
    }

    /// Wait, up to the timeout, for every operation queued so far; the failure if one
    /// failed or the deadline passed (then the communicator is aborted).
    pub(crate) fn wait_all(&self) -> Result<(), String> {
        let deadline = deadline_after(self.timeout);
        // Only what is queued now: other threads may go on queuing.
        let target = self.queued.load(Ordering::SeqCst);
        loop {
            self.poll(Instant::now());
            if let Some(why) = self.failure() {
                return Err(self.spread(why));
            }
            if self.completed.load(Ordering::SeqCst) >= target {
                return Ok(());
            }
            if Instant::now() > deadline {
                self.abort_with(format!(
                    "rank {}: the queued operations did not finish within {:.1} s",
                    self.rank,
                    self.timeout.as_secs_f64()
                ));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
    }

    /// The watchdog's step: drop complete events, and abort on an error or a missed
    /// deadline. Returns whether work is still pending.
    fn poll(&self, now: Instant) -> bool {
        let _ = self.ctx.bind_to_thread();
        let overdue = {
            let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            while let Some(p) = pending.front() {
                match p.event.is_complete() {
                    Ok(true) => {
                        pending.pop_front();
                        self.completed.fetch_add(1, Ordering::SeqCst);
                    }
                    _ => break,
                }
            }
            match pending.front() {
                None => return false,
                Some(p) => now > p.deadline,
            }
        };
        // Not while another thread holds the lock (it may wait there for long), nor while a
        // group holds the communicator (its end runs outside the lock).
        let async_error = match self.state.try_lock() {
            Ok(state) if state.in_groups == 0 => match state.raw {
                // SAFETY: the communicator is live and locked, and no group holds it.
                Some(raw) => unsafe { self.nccl.async_error(raw) },
                None => SUCCESS,
            },
            _ => SUCCESS,
        };
        if async_error != SUCCESS && async_error != IN_PROGRESS {
            let why = self.nccl.describe(async_error, None);
            let why = format!("rank {}: NCCL reported {why}", self.rank);
            self.abort_with(why.clone());
            self.spread(why);
        } else if overdue {
            let why = format!(
                "rank {}: an operation did not finish within {:.1} s (a rank failed, exited, or \
                 called another operation), so the communicator was aborted",
                self.rank,
                self.timeout.as_secs_f64()
            );
            self.abort_with(why.clone());
            self.spread(why);
        }
        true
    }

    /// Fail the communicator with `why` (the first reason is kept) and abort it, or, while
    /// an open group holds it, leave the abort to the group's end.
    fn abort_with(&self, why: String) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.failed.get_or_insert(why);
        if state.in_groups > 0 {
            return;
        }
        if let Some(raw) = state.raw.take() {
            // SAFETY: the communicator is live, locked, held by no group, and not used
            // after this.
            unsafe { self.nccl.abort(raw) };
        }
        drop(state);
        self.forget_pending();
    }

    /// Stop waiting for the queued operations (the communicator is aborted). Their arrays
    /// are kept for good within one process (a peer's kernel may still reach them), and
    /// otherwise freed in stream order, after this rank's stopped kernels.
    pub(super) fn forget_pending(&self) {
        let drained: Vec<Pending> = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
            .collect();
        self.completed.store(u64::MAX, Ordering::SeqCst);
        if self.clique.is_some() {
            keep_forever(drained.into_iter().map(|p| p._kept));
        }
    }
}

impl Locked<'_> {
    /// The raw communicator, for one NCCL call made while this lock is held.
    pub(crate) fn raw(&self) -> RawComm {
        match self.state.raw {
            Some(raw) => raw,
            None => unreachable!("`lock` refuses a destroyed communicator"),
        }
    }

    /// Turn an NCCL call's result into an error (the communicator is aborted on one).
    pub(crate) fn check(&mut self, code: NcclResult, operation: &str) -> Result<(), String> {
        if code == SUCCESS || code == IN_PROGRESS {
            return Ok(());
        }
        let why = format!(
            "rank {}: {operation}: {}",
            self.comm.rank,
            self.comm.nccl.describe(code, Some(self.raw()))
        );
        self.fail(why.clone());
        Err(why)
    }

    /// Wait until NCCL has finished queuing this communicator's work.
    pub(crate) fn wait_ready(&mut self, deadline: Instant, operation: &str) -> Result<(), String> {
        loop {
            // SAFETY: the communicator is live and locked.
            let state = unsafe { self.comm.nccl.async_error(self.raw()) };
            match state {
                SUCCESS => return Ok(()),
                IN_PROGRESS if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_micros(50))
                }
                IN_PROGRESS => {
                    let why = format!(
                        "rank {} of {}: {operation} did not complete within {:.1} s",
                        self.comm.rank,
                        self.comm.world,
                        self.comm.timeout.as_secs_f64()
                    );
                    self.fail(why.clone());
                    return Err(why);
                }
                code => return self.check(code, operation),
            }
        }
    }

    /// Note that an open group holds an operation of this communicator.
    fn enter_group(&mut self) {
        self.state.in_groups += 1;
        self.state.group_thread = Some(std::thread::current().id());
    }

    /// Note that a group that held an operation of this communicator has ended.
    fn leave_group(&mut self) {
        self.state.in_groups = self.state.in_groups.saturating_sub(1);
        if self.state.in_groups == 0 {
            self.state.group_thread = None;
        }
        if self.state.in_groups == 0 && self.state.failed.is_some() {
            if let Some(raw) = self.state.raw.take() {
                // SAFETY: live, locked, no open group holds it, not used after this.
                unsafe { self.comm.nccl.abort(raw) };
            }
        }
    }

    /// Abort now with `why` (a failed call: the communicator's state is unknown).
    fn fail(&mut self, why: String) {
        if self.state.in_groups == 0 {
            if let Some(raw) = self.state.raw.take() {
                // SAFETY: live, locked, not used after this.
                unsafe { self.comm.nccl.abort(raw) };
            }
        }
        self.state.failed.get_or_insert(why);
    }
}

/// Make `ctx` current on this thread (NCCL finds its device there).
pub(crate) fn make_current(ctx: &Arc<CudaContext>) -> Result<(), String> {
    ctx.bind_to_thread().map_err(|e| e.to_string())
}

fn check(nccl: &Nccl, code: NcclResult, comm: Option<RawComm>) -> Result<(), String> {
    match code {
        SUCCESS | IN_PROGRESS => Ok(()),
        code => Err(nccl.describe(code, comm)),
    }
}

/// The communicators the watchdog watches, and how to wake it.
fn watched() -> &'static (Mutex<Vec<Weak<NcclComm>>>, Condvar) {
    static WATCHED: OnceLock<(Mutex<Vec<Weak<NcclComm>>>, Condvar)> = OnceLock::new();
    WATCHED.get_or_init(|| (Mutex::new(Vec::new()), Condvar::new()))
}

fn watch(comm: &Arc<NcclComm>) {
    watched()
        .0
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Arc::downgrade(comm));
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let _ = std::thread::Builder::new()
            .name("gpu-nccl-watchdog".into())
            .spawn(watchdog);
    });
}

fn wake_watchdog() {
    watched().1.notify_all();
}

fn watchdog() {
    let (list, wake) = watched();
    loop {
        let comms: Vec<Arc<NcclComm>> = {
            let mut l = list.lock().unwrap_or_else(|p| p.into_inner());
            l.retain(|w| w.strong_count() > 0);
            l.iter().filter_map(Weak::upgrade).collect()
        };
        let now = Instant::now();
        let busy = comms.iter().fold(false, |busy, c| c.poll(now) | busy);
        drop_elsewhere(comms);
        if busy {
            std::thread::sleep(Duration::from_millis(1));
        } else {
            let l = list.lock().unwrap_or_else(|p| p.into_inner());
            let _ = wake.wait_timeout(l, Duration::from_millis(200));
        }
    }
}

/// Drop `comms` here, except a last owner of a communicator, dropped on a thread of its own:
/// its drop waits (up to its timeout) for its work, which must not hold up the caller (the
/// watchdog, or a failing rank).
fn drop_elsewhere(comms: Vec<Arc<NcclComm>>) {
    for c in comms {
        if Arc::strong_count(&c) == 1 {
            let _ = std::thread::Builder::new()
                .name("gpu-nccl-drop".into())
                .spawn(move || drop(c));
        }
    }
}
