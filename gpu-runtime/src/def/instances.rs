//! The instances of a kernel with const parameters (`fn tiled<T: Float, const BM: usize>`).
//!
//! Each set of values is a kernel of its own: its C is specialised with the values as
//! `constexpr`s, so it has its own compilations, disk-cache entries and loaded kernels.
//! The attribute emits one generic definition and, in the launcher (generic over the
//! const parameters, monomorphised by rustc), asks it for the instance of the launch's
//! values: a [`KernelDef`] made on the first request and kept for the process, with
//! signature slots of its own. The values a program can ask for are those its code names
//! (rustc monomorphises each), so the instances are few and never freed.
//!
//! The lookup is a few atomic loads: the first [`FAST_SLOTS`] instances are published in
//! an array of pointers, read without a lock; more (rare: a kernel launched with many
//! sets of values) are found under a mutex.

use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::Mutex;

use super::kernel::{KernelDef, KernelParts};
use super::module_const::ConstValue;

/// Instances found without a lock.
const FAST_SLOTS: usize = 16;

/// The instances made so far of one kernel with const parameters. Made by the attribute,
/// one per such kernel; not a public API.
#[doc(hidden)]
#[derive(Debug)]
pub struct Instances {
    /// Published instances, in the order they were made; null past the last.
    fast: [AtomicPtr<KernelDef>; FAST_SLOTS],
    /// Every instance (the fast ones too); its lock orders their making.
    all: Mutex<Vec<&'static KernelDef>>,
}

impl Instances {
    /// No instances yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Instances {
        Instances {
            fast: [const { AtomicPtr::new(std::ptr::null_mut()) }; FAST_SLOTS],
            all: Mutex::new(Vec::new()),
        }
    }

    fn find_fast(&self, args: &[u64]) -> Option<&'static KernelDef> {
        for slot in &self.fast {
            let p = slot.load(Ordering::Acquire);
            if p.is_null() {
                return None;
            }
            // SAFETY: non-null slots hold pointers made from `&'static KernelDef`s (in
            // `make`), published with release ordering after the definition was complete.
            let def: &'static KernelDef = unsafe { &*p };
            if def.parts().const_args == args {
                return Some(def);
            }
        }
        None
    }
}

impl KernelDef {
    /// The instance of this kernel for the const parameters' values `args` (their bits),
    /// whose C is specialised with `constants` (the module constants and the values, in
    /// the order the kernel's source numbers them). Not a public API: what a launcher of a
    /// kernel with const parameters calls.
    ///
    /// `local_bytes` is the instance's bound on a thread's local memory (`def/stack.rs`).
    /// A definition without const parameters is its own instance.
    ///
    /// # Safety
    ///
    /// `constants` must be what `__from_parts` asks of a definition's constants, for
    /// this kernel's source with the const parameters given `args`: the launcher the
    /// attribute emits passes exactly that.
    #[inline]
    pub unsafe fn __instance(
        &'static self,
        args: &'static [u64],
        constants: &'static [ConstValue],
        local_bytes: u64,
    ) -> &'static KernelDef {
        let Some(instances) = self.parts().instances else {
            return self;
        };
        match instances.find_fast(args) {
            Some(def) => def,
            // SAFETY: passed on from this function's caller.
            None => unsafe { self.make_instance(instances, args, constants, local_bytes) },
        }
    }

    /// # Safety
    ///
    /// As [`__instance`](Self::__instance).
    #[cold]
    unsafe fn make_instance(
        &'static self,
        instances: &'static Instances,
        args: &'static [u64],
        constants: &'static [ConstValue],
        local_bytes: u64,
    ) -> &'static KernelDef {
        // A poisoned lock holds a complete list: a panic cannot leave it half-updated.
        let mut all = instances.all.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(def) = all.iter().find(|d| d.parts().const_args == args) {
            return def;
        }
        let base = self.parts();
        let slots: Vec<AtomicU32> = base
            .signature_slots
            .iter()
            .map(|_| AtomicU32::new(0))
            .collect();
        let parts = KernelParts {
            signature_slots: Box::leak(slots.into_boxed_slice()),
            constants,
            const_args: args,
            instances: None,
            local_bytes,
            ..*base
        };
        // SAFETY: the parts are the generic definition's (made by the attribute, so they
        // meet `__from_parts`'s contract) with fresh signature slots of the same count,
        // owned by this instance alone, and the constants this function's caller vouches
        // for.
        let def: &'static KernelDef =
            Box::leak(Box::new(unsafe { KernelDef::__from_parts(parts) }));
        if let Some(free) = instances
            .fast
            .iter()
            .find(|s| s.load(Ordering::Relaxed).is_null())
        {
            // Under the lock, so no other thread fills this slot.
            free.store(std::ptr::from_ref(def).cast_mut(), Ordering::Release);
        }
        all.push(def);
        def
    }
}
