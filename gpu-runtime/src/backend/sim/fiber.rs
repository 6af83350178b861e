//! Fibers: the simulated threads of a block that synchronises, run on one OS thread.
//!
//! Each simulated thread is a stackful coroutine. A thread that must wait (at a barrier,
//! in a warp exchange, or every few thousand loop iterations, so that a thread spinning on
//! a flag lets the others run) gives the processor back to [`run`], which resumes the
//! threads round-robin until all have finished. Switching costs nanoseconds where an OS
//! thread switch costs microseconds, and the OS threads are left free to run other blocks.
//!
//! Every state change a waiting thread can wait for (a barrier or warp group completing, a
//! thread finishing, a thread still running) is counted by [`progress`]: a round of resumes
//! in which the count does not move means that every thread waits for another that never
//! arrives, which on the GPU is a hang, and here an error naming the waits.

use std::cell::{Cell, RefCell};

use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};

use super::position::{current_position, set_position};

/// Why a fiber gave the processor back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    /// `sync_threads()` and its counting forms.
    Barrier,
    /// A warp function meeting the lanes of `mask`.
    Warp { mask: u32 },
    /// `sync_grid()`.
    Grid,
    /// Not waiting: a running thread's time slice ended.
    Slice,
}

impl Wait {
    pub(crate) fn describe(self) -> String {
        match self {
            Wait::Barrier => "at sync_threads()".to_owned(),
            Wait::Warp { mask } => format!("in a warp function with mask {mask:#010x}"),
            Wait::Grid => "at sync_grid()".to_owned(),
            Wait::Slice => "running".to_owned(),
        }
    }
}

/// Each fiber's stack: room for the largest kernel a GPU thread can run (512 KB of locals
/// over its chain of device functions; `stack.rs` asserts it). Only the pages a thread
/// touches take memory.
pub(crate) const STACK_BYTES: usize = 4 * 1024 * 1024;

/// Stacks kept for reuse by the next block on this OS thread.
const POOLED_STACKS: usize = 1024;

/// The top of each pooled stack kept in memory between launches; the rest (touched only
/// by threads with large local arrays) is given back by [`trim_stacks`]. A multiple of
/// the page size.
const KEPT_STACK_BYTES: usize = 64 * 1024;

type Fiber = Coroutine<(), Wait, (), DefaultStack>;

thread_local! {
    static YIELDER: Cell<*const Yielder<(), Wait>> = const { Cell::new(std::ptr::null()) };
    static PROGRESS: Cell<u64> = const { Cell::new(0) };
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// Count a state change a waiting fiber may be waiting for.
pub(crate) fn progress() {
    PROGRESS.with(|p| p.set(p.get().wrapping_add(1)));
}

fn progress_count() -> u64 {
    PROGRESS.with(Cell::get)
}

/// Whether the caller runs as a fiber.
pub(crate) fn in_fiber() -> bool {
    !YIELDER.with(Cell::get).is_null()
}

/// Give the processor back to the scheduler; returns when this fiber is resumed. The
/// fiber's own view of the thread-local state (its position in the grid, its block) is
/// put back, since the fibers that ran meanwhile set theirs.
pub(crate) fn suspend(why: Wait) {
    let yielder = YIELDER.with(Cell::get);
    assert!(
        !yielder.is_null(),
        "internal: a simulated thread waits outside a fiber"
    );
    let position = current_position();
    let block = super::block::current_block();
    let ticks = super::deadline::ticks();
    if why == Wait::Slice {
        progress();
    }
    // SAFETY: `yielder` was set by this fiber's own body (in `run`) from the reference the
    // coroutine received, which lives on the fiber's stack as long as the fiber runs;
    // other fibers overwrite the thread-local only while this one is suspended, and it is
    // restored below before anything reads it again.
    unsafe { &*yielder }.suspend(why);
    YIELDER.with(|y| y.set(yielder));
    set_position(position);
    super::block::set_block(block);
    super::deadline::set_ticks(ticks);
}

fn take_stack() -> std::io::Result<DefaultStack> {
    match STACKS.with(|s| s.borrow_mut().pop()) {
        Some(stack) => Ok(stack),
        None => new_stack(),
    }
}

fn return_stack(stack: DefaultStack) {
    STACKS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() < POOLED_STACKS {
            s.push(stack);
        }
    });
}

/// Written [`KEPT_STACK_BYTES`] below the top of every stack: a fiber whose frames went
/// deeper overwrote it (Rust initialises every local array in full).
const DEPTH_MARK: u64 = 0x5eed_cafe_f00d_d00d;

/// Where a stack's depth mark lies.
fn depth_mark(stack: &DefaultStack) -> *mut u64 {
    use corosensei::stack::Stack;
    (stack.base().get() - KEPT_STACK_BYTES - 8) as *mut u64
}

fn new_stack() -> std::io::Result<DefaultStack> {
    let stack = DefaultStack::new(STACK_BYTES)?;
    // SAFETY: the mark lies inside the stack's read-write mapping (STACK_BYTES is far
    // larger than KEPT_STACK_BYTES), aligned, and no coroutine uses the stack yet.
    unsafe { depth_mark(&stack).write_volatile(DEPTH_MARK) };
    Ok(stack)
}

/// Give back the memory of this OS thread's pooled stacks that fibers used deeper than
/// [`KEPT_STACK_BYTES`] (threads with large local arrays), at the end of a launch, so
/// such a kernel leaves no resident memory behind. The top of each stack stays.
pub(crate) fn trim_stacks() {
    #[cfg(unix)]
    STACKS.with(|s| {
        use corosensei::stack::Stack;
        for stack in s.borrow().iter() {
            let mark = depth_mark(stack);
            // SAFETY: as in `new_stack`; pooled stacks belong to no coroutine.
            if unsafe { mark.read_volatile() } == DEPTH_MARK {
                continue;
            }
            let limit = stack.limit().get();
            let end = mark as usize & !4095;
            // SAFETY: [limit, end) lies inside the stack's own read-write mapping, which
            // no fiber is using; MADV_DONTNEED only drops its pages, which read as zeros
            // if touched again. The mark is then written again, as in `new_stack`.
            unsafe {
                libc::madvise(limit as *mut libc::c_void, end - limit, libc::MADV_DONTNEED);
                mark.write_volatile(DEPTH_MARK);
            }
        }
    });
}

/// Why [`run`] stopped early.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// No stack could be made for fiber number `.0`; no fiber ran.
    NoStack(usize, std::io::Error),
    /// Every unfinished fiber waited for another: (fiber number, its wait), in order.
    Deadlock(Vec<(usize, Wait)>),
}

/// Run `body(i)` for `i` in `0..count`, each as a fiber on this OS thread, round-robin from
/// the lowest number, until every one has returned. `body` must not unwind: it catches
/// the simulated thread's failures itself.
///
/// When a round of resumes changes nothing, `settle` may end waits that can end only
/// then (lanes asking for the active mask get the lanes that asked) and says whether it
/// did. If not, every unfinished fiber waits for another: `abort` must make their waits
/// fail (poison them), so that the fibers unwind to the end of `body` when resumed; `run`
/// then finishes them and reports the deadlock.
pub(crate) fn run(
    count: usize,
    body: &dyn Fn(usize),
    settle: &dyn Fn() -> bool,
    abort: &dyn Fn(),
) -> Result<(), Stopped> {
    let mut fibers: Vec<Option<Fiber>> = Vec::with_capacity(count);
    for i in 0..count {
        let stack = take_stack().map_err(|e| Stopped::NoStack(i, e))?;
        let fiber_body = move |yielder: &Yielder<(), Wait>, ()| {
            YIELDER.with(|y| y.set(yielder));
            super::deadline::set_ticks(0);
            body(i);
            YIELDER.with(|y| y.set(std::ptr::null()));
        };
        // SAFETY: `with_stack_unchecked` asks that what the body borrows (`body`) outlive
        // the coroutine until it finishes or is dropped. Every coroutine lives in
        // `fibers`, a local of this function, dropped (finished, or force-unwound by its
        // Drop) before `body`'s borrow ends; none is leaked or forgotten.
        fibers.push(Some(unsafe {
            Coroutine::with_stack_unchecked(stack, fiber_body)
        }));
    }
    let mut waits = vec![Wait::Slice; count];
    let mut live = count;
    let mut deadlock = None;
    while live > 0 {
        let before = progress_count();
        for (i, slot) in fibers.iter_mut().enumerate() {
            let Some(fiber) = slot else { continue };
            match fiber.resume(()) {
                CoroutineResult::Yield(why) => waits[i] = why,
                CoroutineResult::Return(()) => {
                    if let Some(done) = slot.take() {
                        return_stack(done.into_stack());
                    }
                    live -= 1;
                    progress();
                }
            }
        }
        if live > 0 && progress_count() == before && !settle() {
            if deadlock.is_some() {
                // Poisoned waits end their fibers; one still waiting is a bug of ours.
                panic!("internal: simulated threads keep waiting after their block was stopped");
            }
            let stuck = fibers
                .iter()
                .enumerate()
                .filter(|(_, f)| f.is_some())
                .map(|(i, _)| (i, waits[i]))
                .collect();
            deadlock = Some(stuck);
            abort();
        }
    }
    match deadlock {
        Some(stuck) => Err(Stopped::Deadlock(stuck)),
        None => Ok(()),
    }
}
