//! The CPU simulator: runs a kernel's Rust body once for every thread of the grid.
//!
//! The attribute keeps each kernel's body as Rust, with its array parameters replaced by
//! the views of `views.rs`, which check every index and access elements atomically. The
//! simulator sets the thread's position (what `grid_1d()`, `thread_idx()`, ... read), runs
//! the body, and turns a failure into a [`GpuError`]: an index out of bounds names the
//! kernel, the parameter, the index and the length; a run past the deadline
//! ([`SIM_TIMEOUT_ENV`](crate::SIM_TIMEOUT_ENV)) is [`GpuError::Timeout`]; any other panic
//! in the body (an overflow, a division by zero) names the thread and block.
//!
//! Blocks run one after another. Within a block, a kernel whose threads never wait for
//! each other runs its threads one after another; a kernel that calls `sync_threads()` or
//! a warp function (the attribute tells) runs one OS thread per thread of the block, all
//! at once, so barriers, shuffles and votes behave as on the GPU. Shared memory is per
//! block and starts zeroed; atomics are real atomics.

pub mod arith;
mod block;
mod deadline;
pub(crate) mod views;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, RwLock};

pub use deadline::sim_tick;
pub use views::{
    DeviceFnArray, DeviceFnArrayMut, SimArray2, SimArray2Mut, SimArray3, SimArray3Mut, SimSlice,
    SimSliceMut,
};

use crate::compile::kernel_def::KernelDef;
use crate::error::{GpuError, Result};
use crate::host::launch_config::{DeviceLimits, LaunchConfig};
use crate::lang::geometry::{set_position, Dim3, ThreadPosition};
use block::set_grid_barrier;
use block::SimBarrier;
pub(crate) use block::{set_block, with_block, with_grid_barrier, BlockContext};

/// Why a simulated thread stopped early; carried by an unwind that skips the panic hook.
#[derive(Debug)]
pub(crate) enum SimFault {
    OutOfBounds {
        kernel: &'static str,
        param: &'static str,
        index: usize,
        len: usize,
    },
    /// The launch ran past the simulator's deadline.
    Timeout { kernel: &'static str, seconds: f64 },
    /// An integer operation Rust defines as a panic.
    Integer { op: gpu_contract::fault::IntOp },
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

/// Element `i` of a thread's local array, checked: out of range, it is reported as the
/// GPU reports it (`name` is `acc (local array)`), or, outside a simulated kernel (a
/// device function called from the host), panics as an array index does.
#[inline]
pub fn local_ref<'a, T, const N: usize>(a: &'a [T; N], i: usize, name: &'static str) -> &'a T {
    match a.get(i) {
        Some(v) => v,
        None => local_out_of_bounds(name, i, N),
    }
}

/// As [`local_ref`], the element's value.
#[inline]
pub fn local_get<T: Copy, const N: usize>(a: &[T; N], i: usize, name: &'static str) -> T {
    *local_ref(a, i, name)
}

/// As [`local_ref`], writable.
#[inline]
pub fn local_mut<'a, T, const N: usize>(
    a: &'a mut [T; N],
    i: usize,
    name: &'static str,
) -> &'a mut T {
    match a.get_mut(i) {
        Some(v) => v,
        None => local_out_of_bounds(name, i, N),
    }
}

#[cold]
#[inline(never)]
fn local_out_of_bounds(name: &'static str, index: usize, len: usize) -> ! {
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
const SIM_FORALL_BLOCK: u32 = 256;

/// Stack of each simulated thread of a concurrent block: room for the 512 KB of local
/// arrays the GPU allows a thread, and more.
const THREAD_STACK_BYTES: usize = 2 * 1024 * 1024;

/// Run `thread` once per thread of `cfg`'s grid. The threads of a block run at once when
/// the kernel waits for its threads (barriers, warp functions), else one after another.
pub(crate) fn run(
    def: &'static KernelDef,
    cfg: &LaunchConfig<'_>,
    thread: &(dyn Fn() + Sync),
) -> Result<()> {
    let concurrent = def.waits();
    let limits = DeviceLimits::simulator();
    let Some(valid) = cfg.validate(
        def.name(),
        &limits,
        limits.max_threads_per_block,
        SIM_FORALL_BLOCK,
        limits.max_shared_mem_optin,
    )?
    else {
        return Ok(());
    };
    let (grid, block) = (valid.grid, valid.block);
    let shared_bytes = valid.shared_mem_bytes as usize;
    // The grid is walked, never materialised: 2^31 - 1 blocks cost no memory.
    let blocks = move || {
        (0..grid.z).flat_map(move |z| {
            (0..grid.y).flat_map(move |y| (0..grid.x).map(move |x| Dim3::new(x, y, z)))
        })
    };
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
        let all: Vec<Dim3> = blocks().collect();
        run_cooperative(def, &all, &threads, shared_bytes, &position, thread)
    } else if concurrent {
        run_concurrent(def, blocks(), &threads, shared_bytes, &position, thread)
    } else {
        run_sequential(def, blocks(), &threads, shared_bytes, &position, thread)
    }
}

fn run_sequential(
    def: &'static KernelDef,
    blocks: impl Iterator<Item = Dim3>,
    threads: &[Dim3],
    shared_bytes: usize,
    position: &dyn Fn(Dim3, Dim3) -> ThreadPosition,
    thread: &(dyn Fn() + Sync),
) -> Result<()> {
    let mut current = position(Dim3::new(0, 0, 0), Dim3::new(0, 0, 0));
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        for b in blocks {
            let ctx = BlockContext::new(def.name(), threads.len(), shared_bytes, false);
            set_block(&ctx);
            for &t in threads {
                current = position(b, t);
                set_position(Some(current));
                thread();
            }
            set_block(std::ptr::null());
        }
    }));
    set_position(None);
    set_block(std::ptr::null());
    outcome.map_err(|payload| to_error(def, &current, payload))
}

fn run_concurrent(
    def: &'static KernelDef,
    blocks: impl Iterator<Item = Dim3>,
    threads: &[Dim3],
    shared_bytes: usize,
    position: &(dyn Fn(Dim3, Dim3) -> ThreadPosition + Sync),
    thread: &(dyn Fn() + Sync),
) -> Result<()> {
    let n = threads.len();
    // Workers are made once per launch and reused by every block: two rendezvous per
    // block with the coordinating thread (this one).
    let start = SimBarrier::new(n + 1);
    let end = SimBarrier::new(n + 1);
    let current: RwLock<Option<(Dim3, BlockContext)>> = RwLock::new(None);
    let failure: Mutex<Option<GpuError>> = Mutex::new(None);
    let mut spawn_error = None;
    std::thread::scope(|s| {
        let mut spawned = 0;
        for (lane, &t) in threads.iter().enumerate() {
            let (start, end, current, failure) = (&start, &end, &current, &failure);
            let deadline = deadline::current();
            let worker = move || loop {
                deadline::inherit(deadline);
                start.wait(0);
                let guard = current.read().unwrap_or_else(|p| p.into_inner());
                let Some((b, ctx)) = guard.as_ref() else {
                    return; // no more blocks
                };
                let pos = position(*b, t);
                set_position(Some(pos));
                set_block(ctx);
                let r = catch_unwind(AssertUnwindSafe(thread));
                ctx.barrier.leave();
                ctx.warps[lane / 32].leave(lane % 32);
                if let Err(payload) = r {
                    if !block::is_abort(payload.as_ref()) {
                        let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                        if f.is_none() {
                            *f = Some(to_error(def, &pos, payload));
                        }
                        ctx.poison();
                    }
                }
                set_position(None);
                set_block(std::ptr::null());
                drop(guard);
                end.wait(0);
            };
            match std::thread::Builder::new()
                .stack_size(THREAD_STACK_BYTES)
                .spawn_scoped(s, worker)
            {
                Ok(_) => spawned += 1,
                Err(e) => {
                    spawn_error = Some(e.to_string());
                    break;
                }
            }
        }
        if spawned < n {
            // The workers that did start count on the missing ones: take those out of the
            // rendezvous, then release the rest with no block to run.
            for _ in spawned..n {
                start.leave();
                end.leave();
            }
        } else {
            for b in blocks {
                *current.write().unwrap_or_else(|p| p.into_inner()) =
                    Some((b, BlockContext::new(def.name(), n, shared_bytes, true)));
                start.wait(0);
                end.wait(0);
                if failure.lock().unwrap_or_else(|p| p.into_inner()).is_some() {
                    break;
                }
            }
        }
        *current.write().unwrap_or_else(|p| p.into_inner()) = None;
        start.wait(0);
    });
    if let Some(e) = spawn_error {
        return Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: format!("the simulator could not start {n} threads for a block: {e}"),
        });
    }
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The most threads a cooperative launch may have on the simulator, which runs them all at
/// once (one OS thread each).
pub(crate) const SIM_COOPERATIVE_THREADS: usize = 4096;

/// A cooperative launch: every thread of the grid at once, with a grid-wide barrier.
fn run_cooperative(
    def: &'static KernelDef,
    blocks: &[Dim3],
    threads: &[Dim3],
    shared_bytes: usize,
    position: &(dyn Fn(Dim3, Dim3) -> ThreadPosition + Sync),
    thread: &(dyn Fn() + Sync),
) -> Result<()> {
    let total = blocks.len() * threads.len();
    let contexts: Vec<BlockContext> = blocks
        .iter()
        .map(|_| BlockContext::new(def.name(), threads.len(), shared_bytes, true))
        .collect();
    let grid = SimBarrier::for_kernel(total);
    let failure: Mutex<Option<GpuError>> = Mutex::new(None);
    let mut spawn_error = None;
    std::thread::scope(|s| {
        for (&bidx, ctx) in blocks.iter().zip(&contexts) {
            for (lane, &t) in threads.iter().enumerate() {
                let (grid, failure, contexts) = (&grid, &failure, &contexts);
                let deadline = deadline::current();
                let worker = move || {
                    deadline::inherit(deadline);
                    let pos = position(bidx, t);
                    set_position(Some(pos));
                    set_block(ctx);
                    set_grid_barrier(grid);
                    let r = catch_unwind(AssertUnwindSafe(thread));
                    ctx.barrier.leave();
                    ctx.warps[lane / 32].leave(lane % 32);
                    grid.leave();
                    if let Err(payload) = r {
                        if !block::is_abort(payload.as_ref()) {
                            let mut f = failure.lock().unwrap_or_else(|p| p.into_inner());
                            if f.is_none() {
                                *f = Some(to_error(def, &pos, payload));
                            }
                            grid.poison();
                            contexts.iter().for_each(BlockContext::poison);
                        }
                    }
                    set_position(None);
                    set_block(std::ptr::null());
                    set_grid_barrier(std::ptr::null());
                };
                if let Err(e) = std::thread::Builder::new()
                    .stack_size(THREAD_STACK_BYTES)
                    .spawn_scoped(s, worker)
                {
                    // Threads already running would wait for this one: release them.
                    spawn_error = Some(e.to_string());
                    grid.poison();
                    contexts.iter().for_each(BlockContext::poison);
                    return;
                }
            }
        }
    });
    if let Some(e) = spawn_error {
        return Err(GpuError::InvalidLaunch {
            kernel: def.name(),
            reason: format!("the simulator could not start {total} threads: {e}"),
        });
    }
    match failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn to_error(
    def: &'static KernelDef,
    at: &ThreadPosition,
    payload: Box<dyn std::any::Any + Send>,
) -> GpuError {
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
            SimFault::Integer { op } => GpuError::IntegerFault {
                kernel: def.name(),
                signature: def.name().to_owned(),
                operation: op.message(),
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
