//! Vector loads and stores: four consecutive elements as one memory access (CUDA's
//! `float4` and friends), for streaming kernels that must reach full bandwidth.
//!
//! `let v = load4(a, i);` reads `a[4i..4i + 4]` into a local `[T; 4]`, and
//! `store4(c, i, x, y, z, w)` writes `c[4i..4i + 4]`. The index counts vectors, not
//! elements. Arrays made by the runtime start on a 256-byte boundary, so every vector is
//! aligned. On a `&[T]` parameter the load goes through the read-only data cache
//! (`__ldg`), which Rust's borrow rules make sound: no `&mut` to it exists during the
//! launch.

use crate::backend::sim::{SimSlice, SimSliceMut};
use crate::dtype::Dtype;

/// Something four elements can be read from: a kernel's slice parameter.
pub trait VectorSource<T> {
    #[doc(hidden)]
    fn read4(&self, vector: usize) -> [T; 4];
}

impl<T: Dtype> VectorSource<T> for SimSlice<'_, T> {
    fn read4(&self, vector: usize) -> [T; 4] {
        let base = vector.saturating_mul(4);
        std::array::from_fn(|k| self.get(base.saturating_add(k)))
    }
}

impl<T: Dtype> VectorSource<T> for SimSliceMut<'_, T> {
    fn read4(&self, vector: usize) -> [T; 4] {
        let base = vector.saturating_mul(4);
        std::array::from_fn(|k| self.get(base.saturating_add(k)))
    }
}

/// `[a[4 * vector], a[4 * vector + 1], a[4 * vector + 2], a[4 * vector + 3]]`, as one load.
pub fn load4<T: Dtype, S: VectorSource<T>>(a: S, vector: usize) -> [T; 4] {
    a.read4(vector)
}

/// Write `x, y, z, w` to `a[4 * vector..4 * vector + 4]`, as one store.
pub fn store4<T: Dtype>(a: SimSliceMut<'_, T>, vector: usize, x: T, y: T, z: T, w: T) {
    let base = vector.saturating_mul(4);
    // Check the last element first, so nothing is written when the vector overruns.
    let _ = a.get(base.saturating_add(3));
    for (k, v) in [x, y, z, w].into_iter().enumerate() {
        a.set(base + k, v);
    }
}
