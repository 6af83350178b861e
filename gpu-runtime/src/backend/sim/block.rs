//! What the threads of one simulated block share: a barrier for `sync_threads()`, one
//! exchange per warp for shuffles and votes, and the block's shared memory.
//!
//! Kernels that synchronise run each thread of a block as a fiber (`fiber.rs`), all on one
//! OS thread, so this state is single-threaded: a wait gives the processor to the block's
//! other threads until what it waits for has happened. A thread that finishes leaves the
//! barriers, as on the GPU, where exited threads no longer count. A fault in any thread
//! poisons the barriers: every thread waiting at one, or reaching one later, stops.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::Location;

use super::fiber::{self, Wait};

/// Carried by the unwind of a thread stopped because another thread of its block failed.
pub(crate) struct Aborted;

fn abort() -> ! {
    std::panic::resume_unwind(Box::new(Aborted))
}

/// A barrier whose party shrinks as threads finish, and which can sum one value per
/// arriving thread (for `sync_threads_count` and friends).
pub(crate) struct SimBarrier {
    state: RefCell<BarrierState>,
    /// What a thread waiting here is said to wait at.
    what: Wait,
}

struct BarrierState {
    live: usize,
    arrived: usize,
    sum: u64,
    generation: u64,
    last_sum: u64,
    last_party: usize,
    poisoned: bool,
}

impl SimBarrier {
    /// A block's barrier (`sync_threads`) for `party` threads.
    pub(crate) fn for_block(party: usize) -> SimBarrier {
        SimBarrier::new(party, Wait::Barrier)
    }

    /// A cooperative grid's barrier (`sync_grid`) for `party` threads.
    pub(crate) fn for_grid(party: usize) -> SimBarrier {
        SimBarrier::new(party, Wait::Grid)
    }

    fn new(party: usize, what: Wait) -> SimBarrier {
        SimBarrier {
            what,
            state: RefCell::new(BarrierState {
                live: party,
                arrived: 0,
                sum: 0,
                generation: 0,
                last_sum: 0,
                last_party: 0,
                poisoned: false,
            }),
        }
    }

    /// Wait for every live thread; returns the sum of `contribution` over the threads
    /// that arrived, and how many did.
    pub(crate) fn wait(&self, contribution: u64) -> (u64, usize) {
        let generation = {
            let mut s = self.state.borrow_mut();
            if s.poisoned {
                drop(s);
                abort();
            }
            s.arrived += 1;
            s.sum += contribution;
            if s.arrived == s.live {
                Self::release(&mut s);
                return (s.last_sum, s.last_party);
            }
            s.generation
        };
        loop {
            fiber::suspend(self.what);
            let s = self.state.borrow();
            // Poison first: a stopped block lets no thread through, even one whose
            // barrier completed as the others left.
            if s.poisoned {
                drop(s);
                abort();
            }
            if s.generation != generation {
                return (s.last_sum, s.last_party);
            }
        }
    }

    fn release(s: &mut BarrierState) {
        s.last_sum = s.sum;
        s.last_party = s.arrived;
        s.sum = 0;
        s.arrived = 0;
        s.generation += 1;
        fiber::progress();
    }

    /// A thread finished: it no longer counts, which may complete a waiting barrier
    /// (unless the block was stopped).
    pub(crate) fn leave(&self) {
        let mut s = self.state.borrow_mut();
        s.live -= 1;
        if !s.poisoned && s.live > 0 && s.arrived == s.live {
            Self::release(&mut s);
        }
    }

    /// Make every wait, present and future, stop its thread.
    pub(crate) fn poison(&self) {
        self.state.borrow_mut().poisoned = true;
    }
}

/// Value exchange among the lanes of one warp, for shuffles and votes.
///
/// A call meets exactly the lanes its `mask` names (those still running): lanes 0-15
/// shuffling with mask `0xffff` complete without lanes 16-31, as on the GPU, and two
/// disjoint groups of one warp can exchange at the same time.
pub(crate) struct WarpExchange {
    state: RefCell<WarpState>,
}

struct WarpState {
    value: [u64; 32],
    mask: [u32; 32],
    /// Lanes waiting in an exchange.
    arrived: u32,
    /// Of those, the lanes asking which lanes are active (`active_mask()`).
    asking: u32,
    /// Lanes that have not finished the kernel.
    alive: u32,
    /// Each waiting lane's result, once its group is complete.
    result: [Option<[Option<u64>; 32]>; 32],
    poisoned: bool,
}

impl WarpExchange {
    pub(crate) fn new(lanes: usize) -> WarpExchange {
        let alive = if lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        WarpExchange {
            state: RefCell::new(WarpState {
                value: [0; 32],
                mask: [0; 32],
                arrived: 0,
                asking: 0,
                alive,
                result: [None; 32],
                poisoned: false,
            }),
        }
    }

    /// Complete the group `mask` names if every running lane of it has arrived.
    fn try_complete(s: &mut WarpState, mask: u32) {
        let group = mask & s.alive;
        if group == 0 || s.arrived & group != group {
            return;
        }
        Self::complete(s, group);
    }

    /// Give every lane of `group` (all waiting) the values of the group.
    fn complete(s: &mut WarpState, group: u32) {
        let mut seen = [None; 32];
        for (l, slot) in seen.iter_mut().enumerate() {
            if group & (1 << l) != 0 {
                *slot = Some(s.value[l]);
            }
        }
        for l in 0..32 {
            if group & (1 << l) != 0 {
                s.result[l] = Some(seen);
            }
        }
        s.arrived &= !group;
        s.asking &= !group;
        fiber::progress();
    }

    /// Publish `value` for `lane`, wait for the other running lanes `mask` names, and
    /// read their values (`None` for lanes outside the group).
    pub(crate) fn exchange(&self, lane: usize, mask: u32, value: u64) -> [Option<u64>; 32] {
        self.meet(lane, mask, value, false)
    }

    /// Meet the lanes of the warp that are executing this call (`active_mask()`): every
    /// running lane when the warp is converged, else, once the block can go no further,
    /// the lanes that have arrived.
    pub(crate) fn active(&self, lane: usize) -> [Option<u64>; 32] {
        self.meet(lane, u32::MAX, 1, true)
    }

    fn meet(&self, lane: usize, mask: u32, value: u64, asking: bool) -> [Option<u64>; 32] {
        let mask = mask | (1 << lane);
        {
            let mut s = self.state.borrow_mut();
            if s.poisoned {
                drop(s);
                abort();
            }
            s.value[lane] = value;
            s.mask[lane] = mask;
            s.arrived |= 1 << lane;
            if asking {
                s.asking |= 1 << lane;
            }
            Self::try_complete(&mut s, mask);
        }
        loop {
            {
                let mut s = self.state.borrow_mut();
                if let Some(r) = s.result[lane].take() {
                    return r;
                }
                if s.poisoned {
                    drop(s);
                    abort();
                }
            }
            fiber::suspend(Wait::Warp { mask });
        }
    }

    /// The block can go no further: lanes asking which lanes are active get the ones that
    /// asked. Returns whether there were any.
    pub(crate) fn settle(&self) -> bool {
        let mut s = self.state.borrow_mut();
        let group = s.asking & s.arrived;
        if s.poisoned || group == 0 {
            return false;
        }
        Self::complete(&mut s, group);
        true
    }

    /// `lane` finished: groups waiting only for it complete without it (unless the block
    /// was stopped).
    pub(crate) fn leave(&self, lane: usize) {
        let mut s = self.state.borrow_mut();
        s.alive &= !(1 << lane);
        if s.poisoned {
            return;
        }
        let waiting = s.arrived;
        for l in 0..32 {
            if waiting & (1 << l) != 0 {
                let m = s.mask[l];
                Self::try_complete(&mut s, m);
            }
        }
    }

    pub(crate) fn poison(&self) {
        self.state.borrow_mut().poisoned = true;
    }
}

/// The block's shared memory: one zeroed allocation per declaration site and size, made by
/// the first thread that reaches it. Allocations are held as raw pointers (never
/// re-borrowed), since the block's threads each hold views of them.
#[derive(Default)]
pub(crate) struct SharedStore {
    /// By declaration: its source location, its number in its function, its size.
    arrays: HashMap<(&'static Location<'static>, u32, usize), *mut [u64]>,
    dynamic: Option<*mut [u64]>,
}

fn zeroed(bytes: usize) -> *mut [u64] {
    Box::into_raw(vec![0u64; bytes.div_ceil(8).max(1)].into_boxed_slice())
}

impl Drop for SharedStore {
    fn drop(&mut self) {
        for p in self.arrays.values().copied().chain(self.dynamic) {
            // SAFETY: made by `Box::into_raw` in `zeroed`, freed once, after every thread
            // of the block has finished.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

/// What one simulated block's threads share.
pub(crate) struct BlockContext {
    pub barrier: SimBarrier,
    pub warps: Vec<WarpExchange>,
    pub shared: RefCell<SharedStore>,
    pub dynamic_shared_bytes: usize,
    /// Whether the threads run as fibers (else one after another: no barrier needed).
    pub concurrent: bool,
    /// The kernel's name, for errors.
    pub kernel: &'static str,
    /// Each thread's (by its index in the block) `copy_tile_async` groups not yet waited
    /// for, oldest first: their writes land at the `wait_tiles` that retires them, and
    /// never when none does (one of the orders the GPU may take).
    pub async_copies: RefCell<HashMap<usize, std::collections::VecDeque<PendingCopy>>>,
    /// The device globals the launch holds (`globals.rs`): valid while it runs, which
    /// the block's context does not outlive.
    pub globals: *const [super::globals::GlobalSlot],
}

/// The writes of one asynchronous tile copy, its source already read.
pub(crate) type PendingCopy = Box<dyn FnOnce()>;

impl BlockContext {
    /// Queue thread `thread`'s asynchronous copy.
    pub(crate) fn push_async_copy(&self, thread: usize, copy: PendingCopy) {
        self.async_copies
            .borrow_mut()
            .entry(thread)
            .or_default()
            .push_back(copy);
    }

    /// Thread `thread`'s oldest copies beyond the `pending` it may leave in flight.
    pub(crate) fn retire_async_copies(&self, thread: usize, pending: usize) -> Vec<PendingCopy> {
        let mut all = self.async_copies.borrow_mut();
        let Some(queue) = all.get_mut(&thread) else {
            return Vec::new();
        };
        let n = queue.len().saturating_sub(pending);
        queue.drain(..n).collect()
    }

    pub(crate) fn new(
        kernel: &'static str,
        threads: usize,
        dynamic_shared_bytes: usize,
        concurrent: bool,
        globals: &[super::globals::GlobalSlot],
    ) -> BlockContext {
        // Threads run one after another never meet in a warp function.
        let warps = if concurrent { threads.div_ceil(32) } else { 0 };
        BlockContext {
            barrier: SimBarrier::for_block(threads),
            warps: (0..warps)
                .map(|w| WarpExchange::new((threads - w * 32).min(32)))
                .collect(),
            shared: RefCell::new(SharedStore::default()),
            dynamic_shared_bytes,
            concurrent,
            kernel,
            async_copies: RefCell::new(HashMap::new()),
            globals,
        }
    }

    /// The storage of the shared array declared at `site`, of `bytes` bytes, zeroed. A
    /// generic declaration used with two dtypes gets one allocation per size.
    pub(crate) fn shared_array(
        &self,
        site: &'static Location<'static>,
        declaration: u32,
        bytes: usize,
    ) -> *mut u8 {
        let mut store = self.shared.borrow_mut();
        *store
            .arrays
            .entry((site, declaration, bytes))
            .or_insert_with(|| zeroed(bytes)) as *mut u8
    }

    /// The block's dynamic shared memory (the launch's shared-bytes argument), zeroed.
    pub(crate) fn dynamic_shared(&self) -> (*mut u8, usize) {
        let mut store = self.shared.borrow_mut();
        let bytes = self.dynamic_shared_bytes;
        let ptr = *store.dynamic.get_or_insert_with(|| zeroed(bytes)) as *mut u8;
        (ptr, bytes)
    }

    /// Lanes asking for the active mask in a block that can go no further get it; see
    /// [`WarpExchange::settle`].
    pub(crate) fn settle(&self) -> bool {
        self.warps.iter().fold(false, |any, w| w.settle() | any)
    }

    pub(crate) fn poison(&self) {
        self.barrier.poison();
        for w in &self.warps {
            w.poison();
        }
    }
}

thread_local! {
    static BLOCK: Cell<*const BlockContext> = const { Cell::new(std::ptr::null()) };
}

pub(crate) fn set_block(b: *const BlockContext) {
    BLOCK.with(|c| c.set(b));
    // An integer fault of the kernel's arithmetic is the launch's error while a block runs.
    crate::dtype::arith::set_in_simulated_launch(!b.is_null());
}

/// The block the current thread runs, as set by [`set_block`] (null outside one).
pub(crate) fn current_block() -> *const BlockContext {
    BLOCK.with(|c| c.get())
}

/// The current thread's block. Panics outside a simulated kernel, where there is none.
pub(crate) fn with_block<R>(f: impl FnOnce(&BlockContext) -> R) -> R {
    let ptr = BLOCK.with(|c| c.get());
    assert!(
        !ptr.is_null(),
        "block intrinsics (sync_threads(), shared arrays, warp functions) can only be used \
         inside a #[gpu_kernel] running on a device"
    );
    // SAFETY: the simulator sets the pointer to a block context that outlives every call
    // made by the thread's kernel body, and clears it afterwards.
    f(unsafe { &*ptr })
}

/// The running kernel's name, if this thread runs a simulated block.
pub(crate) fn current_kernel() -> Option<&'static str> {
    let ptr = BLOCK.with(|c| c.get());
    // SAFETY: as in `with_block`.
    (!ptr.is_null()).then(|| unsafe { (*ptr).kernel })
}

/// The device globals the running launch holds; `None` outside a launch.
pub(crate) fn current_globals() -> Option<&'static [super::globals::GlobalSlot]> {
    let ptr = BLOCK.with(|c| c.get());
    // SAFETY: as in `with_block`; the launch holds its globals while its blocks run, and
    // the slice is read only while the calling thread runs one of them.
    (!ptr.is_null()).then(|| unsafe { &*(*ptr).globals })
}

/// Whether an unwind payload is an abort caused by another thread's failure.
pub(crate) fn is_abort(payload: &(dyn Any + Send)) -> bool {
    payload.is::<Aborted>()
}

thread_local! {
    static GRID: Cell<*const SimBarrier> = const { Cell::new(std::ptr::null()) };
}

pub(crate) fn set_grid_barrier(b: *const SimBarrier) {
    GRID.with(|c| c.set(b));
}

/// The grid-wide barrier of a cooperative launch. Panics outside one.
pub(crate) fn with_grid_barrier<R>(f: impl FnOnce(&SimBarrier) -> R) -> R {
    let ptr = GRID.with(|c| c.get());
    assert!(
        !ptr.is_null(),
        "sync_grid() can only be used inside a #[gpu_kernel] running on a device"
    );
    // SAFETY: set by the simulator to a barrier that outlives the thread's kernel body.
    f(unsafe { &*ptr })
}
