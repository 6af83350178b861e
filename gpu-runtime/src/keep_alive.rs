//! What a recorded graph holds of the memory its work uses: a shared owner of each array's
//! allocation, so the allocation outlives every replay even when the array is dropped first.
//!
//! An array's allocation sits behind an `Arc` that only the array itself dereferences; a
//! graph keeps clones of it, type-erased, and never looks inside. Dropping the array then
//! frees nothing while a graph that uses it lives; the last owner frees it.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A shared owner of an allocation, held only to keep it alive.
pub(crate) type Kept = Arc<dyn Any + Send + Sync>;

/// An allocation's owner as an argument hands it to a launch: cloned into the graph when
/// the launch is recorded, untouched otherwise. Not a public API.
#[doc(hidden)]
pub trait KeepAlive: Sync {
    /// Another owner of the allocation.
    #[doc(hidden)]
    fn keep_alive(&self) -> Kept;
}

impl<X: Any + Send + Sync> KeepAlive for Arc<X> {
    fn keep_alive(&self) -> Kept {
        self.clone()
    }
}

impl fmt::Debug for dyn KeepAlive + '_ {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeepAlive")
    }
}
