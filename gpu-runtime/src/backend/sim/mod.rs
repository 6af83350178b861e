//! The CPU simulator: runs a kernel's Rust body once for every thread of the grid.
//!
//! The attribute keeps each kernel's body as Rust, with its array parameters replaced by
//! the views of `views.rs`, which check every index and access elements atomically. The
//! simulator sets the thread's position (what `grid_1d()`, `thread_idx()`, ... read), runs
//! the body, and turns a failure into a [`GpuError`]: an index out of bounds names the
//! kernel, the parameter, the index and the length; a run past the deadline
//! ([`TIMEOUT_ENV`](crate::env::TIMEOUT_ENV)) is [`GpuError::Timeout`]; any other panic
//! in the body (an overflow, a division by zero) names the thread and block.
//!
//! Blocks run on all cores at once ([`SIM_THREADS_ENV`](crate::env::SIM_THREADS_ENV) sets how
//! many OS threads), each block on one OS thread. Within a block, a kernel whose threads
//! never wait for each other runs its threads one after another; a kernel that calls
//! `sync_threads()` or a warp function (the attribute tells) runs every thread of the
//! block as a fiber (`fiber.rs`), switched at each wait, so barriers, shuffles and votes
//! behave as on the GPU, and threads that wait for each other forever are reported as
//! [`GpuError::Deadlock`] instead of hanging. Shared memory is per block and starts
//! zeroed; atomics are real atomics.

mod block;
pub(crate) mod comm;
mod deadline;
mod fiber;
pub(crate) mod globals;
pub(crate) mod memory;
mod parts;
pub(crate) mod position;
mod stack;
pub(crate) mod views;

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub use deadline::sim_tick;
pub use views::{lent, lent_mut};
pub use views::{
    DeviceFnArray, DeviceFnArray2, DeviceFnArray2Mut, DeviceFnArray3, DeviceFnArray3Mut,
    DeviceFnArrayMut, SimArray2, SimArray2Mut, SimArray3, SimArray3Mut, SimSlice, SimSliceMut,
};

use crate::def::kernel::KernelDef;
use crate::dtype::arith::IntegerFault;
use crate::error::{GpuError, Result};
use crate::launch::dims::{Dim3, ValidLaunch};
use block::set_grid_barrier;
use block::SimBarrier;
pub(crate) use block::{set_block, with_block, with_grid_barrier, BlockContext, WarpExchange};
use position::{set_position, ThreadPosition};

/// Why a simulated thread stopped early; carried by an unwind that skips the panic hook.
#[derive(Debug)]
pub(crate) enum SimFault {
    OutOfBounds {
        kernel: &'static str,
        param: &'static str,
        index: usize,
        len: usize,
    },
    /// The kernel's code panicked (`assert!`, `panic!`, ...).
    Panic {
        kernel: &'static str,
        location: &'static str,
        message: String,
    },
    /// The launch ran past the simulator's deadline.
    Timeout { kernel: &'static str, seconds: f64 },
    /// The kernel did what the simulator cannot run (foreign CUDA C without a Rust
    /// function for it).
    Unsupported {
        kernel: &'static str,
        reason: String,
    },
    /// A lower-numbered block failed: this block's outcome no longer matters.
    Cancelled,
}

/// An index past the end of a shared array: reported like a parameter's.
#[cold]
pub(crate) fn shared_out_of_bounds(name: &'static str, index: usize, len: usize) -> ! {
    let kernel = with_block(|b| b.kernel);
    std::panic::resume_unwind(Box::new(SimFault::OutOfBounds {
        kernel,
        param: name,
        index,
        len,
    }))
}

/// A call of foreign CUDA C that has no Rust function for the simulator: the launch fails
/// with [`GpuError::InvalidLaunch`] naming it (outside a simulated kernel, a panic).
#[cold]
pub(crate) fn foreign_on_simulator(name: &'static str) -> ! {
    let reason = format!(
        "it calls the foreign CUDA C function `{name}`, which runs only on a GPU; give the \
         simulator a Rust function for it: `#[simulator(path)]` on its declaration in the \
         `#[gpu_extern]` block"
    );
    match block::current_kernel() {
        Some(kernel) => {
            std::panic::resume_unwind(Box::new(SimFault::Unsupported { kernel, reason }))
        }
        None => panic!("`{name}` is foreign CUDA C, callable only from kernels: {reason}"),
    }
}

/// A thread's own array, as the simulator indexes it: a Rust array, or a tensor-core
/// accumulator's part (`mma_acc`), whose length the block size fixes.
pub trait LocalArray {
    /// The element type.
    type Elem;
    /// The elements.
    fn elems(&self) -> &[Self::Elem];
    /// The elements, writable.
    fn elems_mut(&mut self) -> &mut [Self::Elem];
}

/// A module array's rows (`emit_rust::consts` makes each a `&'static [T]`), never written.
impl<T> LocalArray for [T] {
    type Elem = T;
    #[inline]
    fn elems(&self) -> &[T] {
        self
    }
    #[inline]
    fn elems_mut(&mut self) -> &mut [T] {
        self
    }
}

impl<T, const N: usize> LocalArray for [T; N] {
    type Elem = T;
    #[inline]
    fn elems(&self) -> &[T] {
        self
    }
    #[inline]
    fn elems_mut(&mut self) -> &mut [T] {
        self
    }
}

/// Element `i` of a thread's local array, checked: out of range, it is reported as the
/// GPU reports it (`name` is `acc (local array)`), or, outside a simulated kernel (a
/// device function called from the host), panics as an array index does.
#[inline]
pub fn local_ref<'a, A: LocalArray + ?Sized>(
    a: &'a A,
    i: usize,
    name: &'static str,
) -> &'a A::Elem {
    let elems = a.elems();
    match elems.get(i) {
        Some(v) => v,
        None => local_out_of_bounds(name, i, elems.len()),
    }
}

/// As [`local_ref`], the element's value.
#[inline]
pub fn local_get<A: LocalArray + ?Sized>(a: &A, i: usize, name: &'static str) -> A::Elem
where
    A::Elem: Copy,
{
    *local_ref(a, i, name)
}

/// As [`local_ref`], writable.
#[inline]
pub fn local_mut<'a, A: LocalArray + ?Sized>(
    a: &'a mut A,
    i: usize,
    name: &'static str,
) -> &'a mut A::Elem {
    let elems = a.elems_mut();
    let len = elems.len();
    match elems.get_mut(i) {
        Some(v) => v,
        None => local_out_of_bounds(name, i, len),
    }
}

/// A panic in a kernel's code (`assert!`, `panic!`, ...): the thread stops and the launch
/// reports [`GpuError::Panic`] with `location` and the message, as the GPU's fault
/// record does.
#[cold]
#[inline(never)]
pub fn panic_fault(location: &'static str, message: std::fmt::Arguments<'_>) -> ! {
    let message = message.to_string();
    match block::current_kernel() {
        Some(kernel) => std::panic::resume_unwind(Box::new(SimFault::Panic {
            kernel,
            location,
            message,
        })),
        // Called outside a launch (a device function called from the host): a Rust panic.
        None => panic!("{message}"),
    }
}

#[cold]
#[inline(never)]
pub(crate) fn local_out_of_bounds(name: &'static str, index: usize, len: usize) -> ! {
    match block::current_kernel() {
        Some(kernel) => std::panic::resume_unwind(Box::new(SimFault::OutOfBounds {
            kernel,
            param: name,
            index,
            len,
        })),
        None => panic!("index out of bounds: the len is {len} but the index is {index}"),
    }
}

/// The block size of a `forall` launch on the simulator.
pub(crate) const SIM_FORALL_BLOCK: u32 = 256;

/// Threads of a launch per OS thread that runs its blocks: a smaller launch runs on the
/// launching thread alone, where starting another would cost more than it saves.
const THREADS_PER_WORKER: u64 = 8192;

/// The most OS threads the simulator runs blocks on, and the default: one per core.
const MAX_WORKERS: usize = 1024;

/// The most fiber stacks a launch has at once, over all its OS threads: each stack is two
/// memory mappings, and Linux allows a process about 65,000 (`vm.max_map_count`).
const FIBER_STACKS_AT_ONCE: usize = 16384;

fn worker_limit() -> usize {
    static LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        crate::env::count(crate::env::SIM_THREADS_ENV, cores, MAX_WORKERS)
    })
}

/// Run `thread` once per thread of the grid `valid` describes. Blocks run on all cores at
/// once, each on one OS thread; the threads of a block run one after another, or as fibers
/// when the kernel waits for its threads (barriers, warp functions).
pub(crate) fn run(
    def: &'static KernelDef,
    valid: &ValidLaunch,
    globals: &[globals::GlobalSlot],
    thread: &(dyn Fn() + Sync),
) -> Result<()> {
    def.check_local_bound()?;
    let (grid, block) = (valid.grid, valid.block);
    let shared_bytes = valid.shared_mem_bytes as usize;
    let threads: Vec<Dim3> = (0..block.z)
        .flat_map(|z| (0..block.y).flat_map(move |y| (0..block.x).map(move |x| Dim3::new(x, y, z))))
        .collect();
    let position = |b: Dim3, t: Dim3| ThreadPosition {
        thread_idx: t,
        block_idx: b,
        block_dim: block,
        grid_dim: grid,
    };
    let _deadline = deadline::Deadline::start(def.name());
    let launch = Launch {
        def,
        threads: &threads,
        shared_bytes,
        position: &position,
        thread,
        globals,
    };
    if def.cooperative() {
        let total = grid.volume().saturating_mul(block.volume());
        if total > SIM_COOPERATIVE_THREADS as u64 {
            return Err(GpuError::InvalidLaunch {
                kernel: def.name(),
                reason: format!(
                    "a cooperative launch of {total} threads; the simulator runs every thread of a \
                     cooperative grid at once and takes at most {SIM_COOPERATIVE_THREADS}"
                ),
            });
        }
        let all: Vec<Dim3> = (0..grid.volume()).map(|i| block_at(grid, i)).collect();
        let r = launch.run_cooperative(&all);
        fiber::trim_stacks();
        r
    } else if def.waits() {
        let most = (FIBER_STACKS_AT_ONCE / threads.len())
            .min(stack::fiber_blocks_at_once(
                def.name(),
                threads.len(),
                def.local_bytes(),
            )?)
            .max(1);
        let r = run_blocks(def, grid, threads.len(), most, true, &|b| {
            launch.run_block_as_fibers(b)
        });
        fiber::trim_stacks();
        r
    } else {
        let here = stack::fits_here(stack::allowance(def.local_bytes()));
        run_blocks(def, grid, threads.len(), MAX_WORKERS, here, &|b| {
            launch.run_block_in_order(b)
        })
    }
}

/// Block number `i` of `grid`, counting x fastest, as the GPU numbers them.
fn block_at(grid: Dim3, i: u64) -> Dim3 {
    let (gx, gy) = (grid.x as u64, grid.y as u64);
    Dim3::new(
        (i % gx) as u32,
        (i / gx % gy) as u32,
        (i / (gx * gy)) as u32,
    )
}

/// Run `block` for every block of `grid`, on as many OS threads as the launch is worth;
/// on the calling thread too when `here` (its stack has room for the kernel's threads:
/// `stack.rs`), else on workers alone. The error reported is the one of the
/// lowest-numbered failing block, the one a run of the blocks in order would report:
/// blocks are handed out in order, every block below a failing one runs to its end, and
/// no block above the lowest failure starts afterwards.
fn run_blocks(
    def: &'static KernelDef,
    grid: Dim3,
    threads_per_block: usize,
    most_workers: usize,
    here: bool,
    block: &(dyn Fn(Dim3) -> Result<()> + Sync),
) -> Result<()> {
    let total = grid.volume();
    let workers = (total.saturating_mul(threads_per_block as u64) / THREADS_PER_WORKER)
        .clamp(1, worker_limit().min(most_workers) as u64)
        .min(total) as usize;
    if workers <= 1 && here {
        return (0..total).try_for_each(|i| block(block_at(grid, i)));
    }
    let worker_stack = stack::allowance(def.local_bytes()).max(stack::WORKER_STACK_BYTES);
    // Without the calling thread, one more worker.
    let spawned = if here { workers - 1 } else { workers };
    let next = AtomicU64::new(0);
    let lowest_failure = AtomicU64::new(u64::MAX);
    let failure: Mutex<Option<(u64, GpuError)>> = Mutex::new(None);
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= total || i > lowest_failure.load(Ordering::Relaxed) {
            return;
        }
        let outcome = {
            let _watch = deadline::CancelWatch::new(&lowest_failure, i);
            block(block_at(grid, i))
        };
        if let Err(e) = outcome {
            let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
            if f.as_ref().is_none_or(|(at, _)| i < *at) {
                *f = Some((i, e));
            }
            lowest_failure.fetch_min(i, Ordering::Relaxed);
        }
    };
    let deadline = deadline::current();
    let started = std::thread::scope(|s| {
        let mut started = 0;
        for _ in 0..spawned {
            let worker = || {
                deadline::inherit(deadline);
                work();
            };
            // A thread that cannot start leaves its share to the others.
            if std::thread::Builder::new()
                .stack_size(worker_stack)
                .spawn_scoped(s, worker)
                .is_err()
            {
                break;
            }
            started += 1;
        }
        if here {
            work();
        }
        started
    });
    if started == 0 && !here {
        return Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: format!(
                "its threads need {} bytes of stack on the simulator ({} bytes of locals), \
                 more than the launching thread has left, and no thread with that stack \
                 could be started",
                stack::allowance(def.local_bytes()),
                def.local_bytes()
            ),
        });
    }
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Clears this OS thread's simulated-thread state (position, block, grid barrier) when
/// dropped, also when a scheduler unwinds, so no pointer to a finished block outlives it.
struct ClearThreadState;

impl Drop for ClearThreadState {
    fn drop(&mut self) {
        set_position(None);
        set_block(std::ptr::null());
        set_grid_barrier(std::ptr::null());
    }
}

/// One launch's fixed parts, as each block needs them.
struct Launch<'a> {
    def: &'static KernelDef,
    threads: &'a [Dim3],
    shared_bytes: usize,
    position: &'a (dyn Fn(Dim3, Dim3) -> ThreadPosition + Sync),
    thread: &'a (dyn Fn() + Sync),
    globals: &'a [globals::GlobalSlot],
}

impl Launch<'_> {
    /// A block of a kernel whose threads never wait for each other: one thread after
    /// another, on this OS thread's stack.
    fn run_block_in_order(&self, b: Dim3) -> Result<()> {
        let ctx = BlockContext::new(
            self.def.name(),
            self.threads.len(),
            self.shared_bytes,
            false,
            self.globals,
        );
        set_block(&ctx);
        let mut current = (self.position)(b, Dim3::new(0, 0, 0));
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            for &t in self.threads {
                deadline::between_threads();
                current = (self.position)(b, t);
                set_position(Some(current));
                (self.thread)();
            }
        }));
        set_position(None);
        set_block(std::ptr::null());
        outcome.map_err(|payload| to_error(self.def, &current, payload))
    }

    /// A block of a kernel that waits for its threads: every thread a fiber on this OS
    /// thread.
    fn run_block_as_fibers(&self, b: Dim3) -> Result<()> {
        if let Some((kernel, seconds)) = deadline::past() {
            return Err(GpuError::Timeout { kernel, seconds });
        }
        let n = self.threads.len();
        let ctx = BlockContext::new(self.def.name(), n, self.shared_bytes, true, self.globals);
        let _clear = ClearThreadState;
        let failure: RefCell<Option<GpuError>> = RefCell::new(None);
        let body = |i: usize| {
            let pos = (self.position)(b, self.threads[i]);
            set_block(&ctx);
            if self.run_thread(pos, &failure) {
                ctx.poison();
            }
            ctx.barrier.leave();
            ctx.warps[i / 32].leave(i % 32);
            set_block(std::ptr::null());
        };
        let stopped = fiber::run(n, &body, &|| ctx.settle(), &|| ctx.poison());
        self.outcome(stopped, failure, &|i| (b, self.threads[i]))
    }

    /// A cooperative launch: every thread of the grid a fiber on this OS thread, with a
    /// grid-wide barrier.
    fn run_cooperative(&self, blocks: &[Dim3]) -> Result<()> {
        let n = self.threads.len();
        let contexts: Vec<BlockContext> = blocks
            .iter()
            .map(|_| BlockContext::new(self.def.name(), n, self.shared_bytes, true, self.globals))
            .collect();
        let grid = SimBarrier::for_grid(blocks.len() * n);
        let _clear = ClearThreadState;
        let failure: RefCell<Option<GpuError>> = RefCell::new(None);
        let stop_all = || {
            grid.poison();
            contexts.iter().for_each(BlockContext::poison);
        };
        let body = |i: usize| {
            let (bi, ti) = (i / n, i % n);
            let ctx = &contexts[bi];
            let pos = (self.position)(blocks[bi], self.threads[ti]);
            set_block(ctx);
            if self.run_thread(pos, &failure) {
                stop_all();
            }
            ctx.barrier.leave();
            ctx.warps[ti / 32].leave(ti % 32);
            grid.leave();
            set_block(std::ptr::null());
        };
        let settle = || contexts.iter().fold(false, |any, c| c.settle() | any);
        set_grid_barrier(&grid);
        let stopped = fiber::run(blocks.len() * n, &body, &settle, &stop_all);
        self.outcome(stopped, failure, &|i| (blocks[i / n], self.threads[i % n]))
    }

    /// Run the kernel body as the thread at `pos`; a failure of its own (not an abort
    /// caused by another thread's) is recorded in `failure` if it is the first. Returns
    /// whether the thread failed so.
    fn run_thread(&self, pos: ThreadPosition, failure: &RefCell<Option<GpuError>>) -> bool {
        set_position(Some(pos));
        let r = catch_unwind(AssertUnwindSafe(self.thread));
        set_position(None);
        match r {
            Ok(()) => false,
            Err(payload) if block::is_abort(payload.as_ref()) => false,
            Err(payload) => {
                let mut f = failure.borrow_mut();
                if f.is_none() {
                    *f = Some(to_error(self.def, &pos, payload));
                }
                true
            }
        }
    }

    /// The launch's result once its fibers have run: the first thread failure, else the
    /// deadlock or the missing stack; `at(i)` is fiber `i`'s block and thread.
    fn outcome(
        &self,
        stopped: std::result::Result<(), fiber::Stopped>,
        failure: RefCell<Option<GpuError>>,
        at: &dyn Fn(usize) -> (Dim3, Dim3),
    ) -> Result<()> {
        if let Some(e) = failure.into_inner() {
            return Err(e);
        }
        match stopped {
            Ok(()) => Ok(()),
            Err(fiber::Stopped::NoStack(i, e)) => {
                let (b, t) = at(i);
                Err(GpuError::InvalidLaunch {
                    kernel: self.def.name(),
                    reason: format!(
                        "the simulator could not make a stack of {} bytes for thread {:?} of \
                         block {:?} (its threads have up to {} bytes of locals): {e}",
                        fiber::STACK_BYTES,
                        t.tuple(),
                        b.tuple(),
                        self.def.local_bytes()
                    ),
                })
            }
            Err(fiber::Stopped::Deadlock(stuck)) => Err(GpuError::Deadlock {
                kernel: self.def.name(),
                waits: describe_waits(&stuck, at),
            }),
        }
    }
}

/// The waits of a deadlock, grouped: `255 threads at sync_threads() (thread (1, 0, 0) of
/// block (0, 0, 0), ...); 1 thread in a warp function with mask 0x00000003 (...)`.
fn describe_waits(stuck: &[(usize, fiber::Wait)], at: &dyn Fn(usize) -> (Dim3, Dim3)) -> String {
    const NAMED: usize = 3;
    let mut groups: Vec<(fiber::Wait, Vec<usize>)> = Vec::new();
    for &(i, w) in stuck {
        match groups.iter_mut().find(|(g, _)| *g == w) {
            Some((_, members)) => members.push(i),
            None => groups.push((w, vec![i])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(w, members)| {
            let named: Vec<String> = members
                .iter()
                .take(NAMED)
                .map(|&i| {
                    let (b, t) = at(i);
                    format!("thread {:?} of block {:?}", t.tuple(), b.tuple())
                })
                .collect();
            let more = if members.len() > NAMED { ", ..." } else { "" };
            let noun = if members.len() == 1 {
                "thread"
            } else {
                "threads"
            };
            format!(
                "{} {noun} {} ({}{more})",
                members.len(),
                w.describe(),
                named.join(", ")
            )
        })
        .collect();
    parts.join("; ")
}

/// The most threads a cooperative launch may have on the simulator, which runs them all at
/// once (one fiber each, on one OS thread).
pub(crate) const SIM_COOPERATIVE_THREADS: usize = 4096;

/// The blocks of `threads` threads a cooperative launch may have on the simulator.
pub(crate) fn cooperative_blocks(threads: u32) -> u64 {
    SIM_COOPERATIVE_THREADS as u64 / u64::from(threads.max(1))
}

fn to_error(
    def: &'static KernelDef,
    at: &ThreadPosition,
    payload: Box<dyn std::any::Any + Send>,
) -> GpuError {
    if let Some(IntegerFault(op)) = payload.downcast_ref::<IntegerFault>() {
        return GpuError::IntegerFault {
            kernel: def.name(),
            signature: def.name().to_owned(),
            operation: op.message(),
        };
    }
    if let Some(fault) = payload.downcast_ref::<SimFault>() {
        return match *fault {
            SimFault::OutOfBounds {
                kernel,
                param,
                index,
                len,
            } => GpuError::OutOfBounds {
                kernel,
                param,
                index,
                len,
            },
            SimFault::Timeout { kernel, seconds } => GpuError::Timeout { kernel, seconds },
            SimFault::Unsupported { kernel, ref reason } => GpuError::InvalidLaunch {
                kernel,
                reason: reason.clone(),
            },
            SimFault::Panic {
                kernel,
                location,
                ref message,
            } => GpuError::Panic {
                kernel,
                location: location.to_owned(),
                message: message.clone(),
            },
            // Never reported: a lower-numbered block's error is.
            SimFault::Cancelled => GpuError::SimulatorPanic {
                kernel: def.name(),
                thread: at.thread_idx.tuple(),
                block: at.block_idx.tuple(),
                message: "stopped because a lower-numbered block failed".to_owned(),
            },
        };
    }
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic with no message".to_owned());
    GpuError::SimulatorPanic {
        kernel: def.name(),
        thread: at.thread_idx.tuple(),
        block: at.block_idx.tuple(),
        message,
    }
}
