//! How much stack the calling OS thread has left: the simulator runs a launch's threads
//! on the caller only with room for them (`sim/stack.rs`), and NVRTC, whose compilation
//! takes more stack than a small thread has, runs on a thread of its own otherwise
//! (`cuda/nvrtc.rs`).

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
