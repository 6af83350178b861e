//! The simulator's device memory: an array's elements on the host heap, behind an `Arc` a
//! recorded graph can keep alive (see `keep_alive.rs`).
//!
//! Kernels reach the elements through views, by relaxed atomic accesses (`views.rs`); the
//! host API reaches them as slices, in [`SimBuffer::read`] and [`SimBuffer::write`]. A
//! launch borrows its arrays, so Rust's borrows keep those slices apart from the launch's
//! views. A graph's replay borrows nothing: it runs while holding [`replay_lock`], which
//! every slice access takes too, so a replay on one thread and a host copy on another
//! never overlap. (A replay's `println!` takes stdout's lock under it: a thread that holds
//! stdout's lock while it copies a simulator array waits for the replay, and the replay
//! for it.)

use std::sync::{Arc, Mutex, MutexGuard};

use crate::keep_alive::KeepAlive;

/// An array's elements on the simulator.
pub(crate) struct SimBuffer<T> {
    cell: Arc<SimCell<T>>,
}

/// The elements: a boxed slice given up to raw parts (so that pointers into it stay valid
/// however the owner moves), freed with the last owner. Reached as a slice only through
/// the one `SimBuffer` that made it, otherwise by raw pointer by the views of a launch or
/// a replay.
struct SimCell<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Drop for SimCell<T> {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `len` are the parts of the boxed slice `SimBuffer::new` gave
        // up, freed once, here.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len)) });
    }
}

// SAFETY: the elements are reached as slices only by the `SimBuffer` that owns them (under
// its borrow rules and `replay_lock`), and otherwise by relaxed atomic accesses through
// views; every other owner is a graph's type-erased `Arc`, which only drops them.
unsafe impl<T: Send + Sync> Sync for SimCell<T> {}
// SAFETY: the same; `T` is `Send`.
unsafe impl<T: Send + Sync> Send for SimCell<T> {}

/// Held by a graph's replay on the simulator, and by every host access to an array's
/// elements there (see the module's notes).
pub(crate) fn replay_lock() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

impl<T: Send + Sync + 'static> SimBuffer<T> {
    pub(crate) fn new(elements: Vec<T>) -> SimBuffer<T> {
        let len = elements.len();
        let ptr = Box::into_raw(elements.into_boxed_slice()).cast::<T>();
        SimBuffer {
            cell: Arc::new(SimCell { ptr, len }),
        }
    }

    /// The first element, for a view (the caller keeps to the array's length).
    pub(crate) fn ptr(&self) -> *mut T {
        self.cell.ptr
    }

    /// The elements as a slice.
    ///
    /// # Safety
    ///
    /// No view may write them while the slice lives (see `read`).
    unsafe fn slice(&self) -> &[T] {
        // SAFETY: `len` initialised elements from `ptr`, live while `self` is; the caller
        // excludes writes.
        unsafe { std::slice::from_raw_parts(self.cell.ptr, self.cell.len) }
    }

    /// The allocation's owner, for a graph that records work on it.
    pub(crate) fn owner(&self) -> &dyn KeepAlive {
        &self.cell
    }

    /// `f` of the elements, read while no replay runs.
    pub(crate) fn read<R>(&self, f: impl FnOnce(&[T]) -> R) -> R {
        let _replay = replay_lock();
        // SAFETY: no replay runs (the lock), and no launch writes these elements while
        // `&self` is borrowed (a launch that writes takes the array mutably); only this
        // buffer makes slices of them.
        f(unsafe { self.slice() })
    }

    /// `f` of the elements, written while no replay runs.
    pub(crate) fn write<R>(&mut self, f: impl FnOnce(&mut [T]) -> R) -> R {
        let _replay = replay_lock();
        // SAFETY: as in `read`; `&mut self` excludes every launch and slice of this array,
        // so this is the only access to the `len` elements from `ptr`.
        f(unsafe { std::slice::from_raw_parts_mut(self.cell.ptr, self.cell.len) })
    }
}

/// A writer of an array's elements that keeps them alive and borrows nothing: what a
/// collective inside a group writes at the group's end, when the array may be borrowed
/// (shared) elsewhere or dropped.
pub(crate) struct SimWriter<T> {
    cell: Arc<SimCell<T>>,
}

impl<T: crate::dtype::Element> SimWriter<T> {
    /// Store `values` from element `start` on, each by relaxed atomic stores of its parts
    /// (as a kernel's views write), while no replay and no host slice access runs.
    pub(crate) fn store(&self, start: usize, values: &[T]) {
        let end = start.checked_add(values.len());
        assert!(
            end.is_some_and(|e| e <= self.cell.len),
            "a collective's result overruns its array"
        );
        let _replay = replay_lock();
        for (k, v) in values.iter().enumerate() {
            // SAFETY: `start + k` is within the allocation (asserted), which `self.cell`
            // keeps alive; every other access to it while this runs is a view's atomic
            // access (host slices wait for the lock), so this store races with nothing.
            unsafe { crate::backend::sim::views::store(self.cell.ptr.add(start + k), *v) };
        }
    }
}

impl<T: Send + Sync + 'static> SimBuffer<T> {
    /// A writer of these elements (see [`SimWriter`]).
    pub(crate) fn writer(&self) -> SimWriter<T> {
        SimWriter {
            cell: self.cell.clone(),
        }
    }
}

impl<T: Copy + Send + Sync + 'static> SimBuffer<T> {
    /// Overwrite the elements with `src`'s (the same length), while no replay runs.
    pub(crate) fn copy_from(&mut self, src: &SimBuffer<T>) {
        let _replay = replay_lock();
        // SAFETY: as in `read` and `write`; `src` is another array (`&mut self` and `&src`
        // cannot be one array), so the two slices do not overlap.
        let (dst, src) = unsafe {
            (
                std::slice::from_raw_parts_mut(self.cell.ptr, self.cell.len),
                src.slice(),
            )
        };
        dst.copy_from_slice(src);
    }
}
