//! Compiled kernels of one device, found without hashing, locking or allocating.
//!
//! Each (kernel, dtype signature) pair gets a dense process-wide id the first time it is
//! launched: the kernel's static holds one `AtomicU32` per signature, indexed by the
//! dtypes' small indices, so the launcher finds the id with one atomic load. Each device
//! keeps a two-level table of once-cells indexed by that id. After the first launch of a
//! signature on a device, finding its function costs three atomic loads.

use std::sync::atomic::{AtomicU32, Ordering};

use once_cell::sync::OnceCell;

use crate::error::GpuError;

const CHUNK: usize = 256;
const CHUNKS: usize = 256;

/// The id of a kernel signature, assigned on first use.
#[inline]
pub(crate) fn signature_id(slot: &AtomicU32) -> Result<u32, GpuError> {
    match slot.load(Ordering::Acquire) {
        0 => assign_id(slot),
        v => Ok(v - 1),
    }
}

#[cold]
fn assign_id(slot: &AtomicU32) -> Result<u32, GpuError> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    // Taken only while ids remain, so the counter never passes the table (and never wraps
    // around to hand out an id that is already some other kernel's).
    let taken = NEXT.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
        ((n as usize) < CHUNK * CHUNKS).then_some(n + 1)
    });
    let Ok(fresh) = taken else {
        return Err(GpuError::InvalidArgument(format!(
            "more than {} kernel signatures launched in one process",
            CHUNK * CHUNKS
        )));
    };
    // Another thread may have won the race; then its id stands and ours goes unused.
    match slot.compare_exchange(0, fresh + 1, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => Ok(fresh),
        Err(v) => Ok(v - 1),
    }
}

type Chunk<V> = Box<[OnceCell<V>; CHUNK]>;

/// Per-device table from signature id to its loaded function.
pub(crate) struct FunctionTable<V> {
    chunks: Box<[OnceCell<Chunk<V>>; CHUNKS]>,
}

impl<V> FunctionTable<V> {
    pub(crate) fn new() -> Self {
        FunctionTable {
            chunks: Box::new([const { OnceCell::new() }; CHUNKS]),
        }
    }

    /// The value for `id`, if it has been made.
    #[inline]
    pub(crate) fn get(&self, id: u32) -> Option<&V> {
        self.chunks.get(id as usize / CHUNK)?.get()?[id as usize % CHUNK].get()
    }

    /// The value for `id`, made by `load` on the first call for that id. Concurrent first
    /// calls for one id run `load` once; the others wait for it.
    #[inline]
    pub(crate) fn get_or_load(
        &self,
        id: u32,
        load: impl FnOnce() -> Result<V, GpuError>,
    ) -> Result<&V, GpuError> {
        let chunk = self
            .chunks
            .get(id as usize / CHUNK)
            .ok_or_else(|| {
                GpuError::InvalidArgument(format!("kernel signature id {id} past the table"))
            })?
            .get_or_init(|| Box::new([const { OnceCell::new() }; CHUNK]));
        chunk[id as usize % CHUNK].get_or_try_init(load)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_and_stable() {
        let a = AtomicU32::new(0);
        let b = AtomicU32::new(0);
        let ia = signature_id(&a).unwrap();
        let ib = signature_id(&b).unwrap();
        assert_ne!(ia, ib);
        assert_eq!(signature_id(&a).unwrap(), ia);
    }

    #[test]
    fn loads_once_per_id_and_keeps_errors_retryable() {
        let table: FunctionTable<u32> = FunctionTable::new();
        let mut calls = 0;
        assert!(table
            .get_or_load(300, || Err(GpuError::InvalidArgument("first try".into())))
            .is_err());
        let v = *table
            .get_or_load(300, || {
                calls += 1;
                Ok(7)
            })
            .unwrap();
        assert_eq!(v, 7);
        assert_eq!(*table.get_or_load(300, || Ok(9)).unwrap(), 7);
        assert_eq!(calls, 1);
    }
}
