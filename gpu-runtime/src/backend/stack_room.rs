//! How much stack the calling OS thread has left: the simulator runs a launch's threads
//! on the caller only with room for them (`sim/stack.rs`), and what takes more stack than
//! a small thread has (NVRTC's compiler, the CUDA driver's start and a context's creation)
//! runs on a thread of its own otherwise ([`with_room`]).

/// The bytes of stack left below the caller's frame on this OS thread, where the system
/// says (Linux) and the caller runs on that stack (not on a coroutine's or a signal
/// stack); `None` otherwise.
#[cfg(target_os = "linux")]
pub(crate) fn remaining() -> Option<usize> {
    thread_local! {
        /// This thread's stack, (lowest address, size), asked once: on the main thread the
        /// system reads `/proc/self/maps` to answer.
        static BOUNDS: std::cell::Cell<Option<(usize, usize)>> =
            const { std::cell::Cell::new(None) };
    }
    let (low, size) = match BOUNDS.with(std::cell::Cell::get) {
        Some(b) => b,
        None => {
            let b = stack_bounds()?;
            BOUNDS.with(|c| c.set(Some(b)));
            b
        }
    };
    let here = 0u8;
    let sp = std::ptr::addr_of!(here) as usize;
    if sp < low || sp - low >= size {
        return None;
    }
    // The guard page(s) at the bottom are not usable: leave 64 KB.
    Some((sp - low).saturating_sub(64 * 1024))
}

#[cfg(target_os = "linux")]
fn stack_bounds() -> Option<(usize, usize)> {
    // SAFETY: the attribute object is written by pthread_getattr_np before it is read and
    // destroyed once after, only when that call succeeded; the out-pointers are valid
    // locals.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr = std::ptr::null_mut();
        let mut size = 0;
        let r = libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
        libc::pthread_attr_destroy(&mut attr);
        (r == 0).then_some((addr as usize, size))
    }
}

/// The bytes of stack left: unknown on this system.
#[cfg(not(target_os = "linux"))]
pub(crate) fn remaining() -> Option<usize> {
    None
}

/// The stack a call given to [`with_room`] gets when the caller lacks it: a main thread's.
pub(crate) const ROOMY_STACK_BYTES: usize = 8 * 1024 * 1024;

/// `f()` on this thread when it has `bytes` of stack left, else on a scoped thread with
/// [`ROOMY_STACK_BYTES`] (this one waits for it, so it is a call on another stack); an
/// `Err` when no such thread could be started. `f` must not rely on this thread's
/// thread-locals (a CUDA context made current there is not current here).
pub(crate) fn with_room<R: Send>(bytes: usize, f: impl FnOnce() -> R + Send) -> std::io::Result<R> {
    if remaining().is_some_and(|left| left >= bytes) {
        return Ok(f());
    }
    std::thread::scope(|s| {
        let t = std::thread::Builder::new()
            .name("gpu-runtime-stack".to_owned())
            .stack_size(ROOMY_STACK_BYTES.max(bytes + bytes / 2))
            .spawn_scoped(s, f)?;
        Ok(t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 600 KB of locals: more than a 256 KB thread has.
    #[inline(never)]
    fn deep() -> u64 {
        let a = std::hint::black_box([7u8; 600 * 1024]);
        a.iter().map(|&b| u64::from(b)).sum()
    }

    #[test]
    fn a_call_without_the_room_runs_on_a_thread_with_it() {
        let small = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| with_room(1024 * 1024, deep).expect("a thread with the room"))
            .expect("a small thread");
        assert_eq!(small.join().expect("no overflow"), 7 * 600 * 1024);
        // With the room, on the caller.
        let here = std::thread::current().id();
        let on = with_room(1024, || std::thread::current().id()).expect("runs");
        if remaining().is_some() {
            assert_eq!(on, here);
        }
    }
}
