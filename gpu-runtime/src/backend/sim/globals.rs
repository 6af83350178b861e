//! Device globals (`#[gpu_global]`) on the simulator, and module arrays as a simulated
//! body reads them.
//!
//! Each (simulated device, global) pair has one copy, made from the initialiser at its
//! first use and kept for the process (a simulated device is a number, never freed). A
//! launch that names globals holds each one's lock while it runs, as do the host's reads
//! and writes, so launches on one global run one at a time, in the order they take the
//! locks, whatever thread launches them: the GPU's order between launches that name a
//! global, by construction. The threads of one launch reach the copies through views,
//! whose accesses are atomic, as they reach array parameters.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::views::{SimSlice, SimSliceMut};
use crate::def::module_array::{DeviceGlobal, ModuleArrayDyn, TableElem, TableRow};
use crate::dtype::Element;

/// One device's copy of a global: 8-byte words (every element type's alignment divides
/// 8), reached through raw pointers only.
pub(crate) struct SimGlobal {
    words: Box<[std::cell::UnsafeCell<u64>]>,
    bytes: usize,
    /// Held by a launch that names the global, and by a host read or write.
    lock: Mutex<()>,
}

// SAFETY: the words are accessed only through views (atomic accesses) by the threads of
// the launch that holds `lock`, or by a host copy that holds it.
unsafe impl Sync for SimGlobal {}
// SAFETY: as above; the words are plain data.
unsafe impl Send for SimGlobal {}

impl SimGlobal {
    fn new(init: &[u8]) -> SimGlobal {
        let words: Box<[std::cell::UnsafeCell<u64>]> = (0..init.len().div_ceil(8))
            .map(|_| std::cell::UnsafeCell::new(0))
            .collect();
        let g = SimGlobal {
            words,
            bytes: init.len(),
            lock: Mutex::new(()),
        };
        // SAFETY: nothing else can see `g` yet; its words hold `init.len()` bytes.
        unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), g.ptr(), init.len()) };
        g
    }

    fn ptr(&self) -> *mut u8 {
        // An `UnsafeCell<u64>` has `u64`'s layout; an empty copy has a dangling, aligned
        // pointer, never read through.
        std::cell::UnsafeCell::raw_get(self.words.as_ptr()).cast::<u8>()
    }

    /// Hold the copy: no launch runs on it until the guard drops.
    pub(crate) fn hold(&self) -> MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Its bytes (the caller holds it).
    pub(crate) fn read(&self, _held: &MutexGuard<'_, ()>) -> Vec<u8> {
        let mut out = vec![0u8; self.bytes];
        // SAFETY: the guard keeps every launch off the copy, which holds `bytes` bytes.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr(), out.as_mut_ptr(), self.bytes) };
        out
    }

    /// Replace its bytes (the caller holds it); `bytes` has its length.
    pub(crate) fn write(&self, _held: &MutexGuard<'_, ()>, bytes: &[u8]) {
        assert_eq!(bytes.len(), self.bytes, "a global's bytes have its length");
        // SAFETY: as in `read`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.ptr(), self.bytes) };
    }

    /// What the threads of a launch that holds it reach it through.
    pub(crate) fn slot(&self, key: usize) -> GlobalSlot {
        GlobalSlot {
            key,
            ptr: self.ptr(),
            bytes: self.bytes,
        }
    }
}

/// A global as a running launch's threads find it: by its key (the address of its
/// `static`), its copy's address and size. Valid while the launch holds the copy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GlobalSlot {
    key: usize,
    ptr: *mut u8,
    bytes: usize,
}

/// The copy of the global at `key` (whose initial elements are `array`'s) on simulated
/// device `device`, made at the first call.
pub(crate) fn copy_of(device: usize, key: usize, array: &dyn ModuleArrayDyn) -> Arc<SimGlobal> {
    type Copies = Mutex<HashMap<(usize, usize), Arc<SimGlobal>>>;
    static COPIES: OnceLock<Copies> = OnceLock::new();
    let mut all = COPIES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    all.entry((device, key))
        .or_insert_with(|| Arc::new(SimGlobal::new(&array.elements().bytes())))
        .clone()
}

/// The running launch's copy of the global at `key`.
fn running_slot(key: usize, name: &str) -> GlobalSlot {
    let found = super::block::current_globals().and_then(|g| g.iter().find(|s| s.key == key));
    match found {
        Some(s) => *s,
        // Only a device function called from the host gets here.
        None => panic!(
            "`{name}` is a #[gpu_global]: device memory, reached in kernels; on the host, read \
             it with `{name}.read(&device)`"
        ),
    }
}

/// How a simulated body reads a module array whose rows it uses as `R`: a table in
/// place, a global through the running launch's copy. The attribute names each module
/// array through a function returning `&'static dyn SimRows<R>`, so rustc checks the type
/// the kernel's uses imply against the declaration, once.
#[diagnostic::on_unimplemented(
    message = "a kernel uses `{Self}` with rows of `{R}`",
    label = "declared with other elements than the kernel computes with",
    note = "give the array the element type the kernel uses (or index it as deep as it is declared)"
)]
pub trait SimRows<R>: Sync {
    /// `self[i]`, checked, reported under `label` (`LUT (constant array)`).
    fn sim_get(&self, i: usize, label: &'static str) -> R;
    /// `&self[i]` of a table's rows (a 2-D or 3-D table); never called on a global (a
    /// global is one-dimensional, so no second index compiles).
    fn sim_ref(&self, i: usize, label: &'static str) -> &R;
    /// `&self` lent to a device function.
    fn sim_lent(&self, label: &'static str) -> SimSlice<'_, R>;
    /// The running launch's writable view of a global (the generated code asserts at
    /// compile time that a kernel writes only writable globals).
    fn sim_view(&self, label: &'static str) -> SimSliceMut<'_, R>;
}

impl<R: TableRow, const N: usize> SimRows<R> for [R; N] {
    fn sim_get(&self, i: usize, label: &'static str) -> R {
        *super::local_ref(self, i, label)
    }

    fn sim_ref(&self, i: usize, label: &'static str) -> &R {
        super::local_ref(self, i, label)
    }

    fn sim_lent(&self, label: &'static str) -> SimSlice<'_, R> {
        super::views::lent(self, label)
    }

    fn sim_view(&self, _label: &'static str) -> SimSliceMut<'_, R> {
        unreachable!("a kernel that writes a module array asserts it is a #[gpu_global]")
    }
}

impl<T: TableElem + Element, const N: usize, const C: bool> SimRows<T> for DeviceGlobal<[T; N], C> {
    fn sim_get(&self, i: usize, label: &'static str) -> T {
        self.sim_lent(label).get(i)
    }

    fn sim_ref(&self, _i: usize, _label: &'static str) -> &T {
        unreachable!("a #[gpu_global] is one-dimensional")
    }

    fn sim_lent(&self, label: &'static str) -> SimSlice<'_, T> {
        self.sim_view(label).read_only()
    }

    fn sim_view(&self, label: &'static str) -> SimSliceMut<'_, T> {
        // The key is the address of the global's `static`, as `GlobalSymbol::key` takes it.
        let slot = running_slot(self as *const Self as usize, self.name());
        let kernel = super::block::current_kernel().unwrap_or("");
        // SAFETY: the running launch holds the copy, whose `N` elements of `T` (its bytes)
        // stay allocated for the process; every access through the view is atomic.
        unsafe {
            SimSliceMut::from_raw(
                slot.ptr.cast::<T>(),
                slot.bytes / size_of::<T>(),
                kernel,
                label,
            )
        }
    }
}

// SAFETY: a slot is a handle to a copy the launch holds; its threads access the copy only
// through views, atomically (see the module's documentation).
unsafe impl Send for GlobalSlot {}
// SAFETY: as above.
unsafe impl Sync for GlobalSlot {}
