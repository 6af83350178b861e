//! Vector loads and stores: four consecutive elements as one memory access (CUDA's
//! `float4` and friends), for streaming kernels that must reach full bandwidth.
//!
//! `let v = load4(a, i);` reads `a[4i..4i + 4]` into a local `[T; 4]`, and
//! `store4(c, i, x, y, z, w)` writes `c[4i..4i + 4]`. The index counts vectors, not
//! elements. Arrays made by the runtime start on a 256-byte boundary, so every vector is
//! aligned; so do the 1-D shared arrays a kernel reads or writes this way (the translator
//! declares them `__align__(16)`), where `load4` reads a tile's row in one shared-memory
//! access instead of four. On a `&[T]` parameter the load goes through the read-only data cache
//! (`__ldg`), which Rust's borrow rules make sound: no `&mut` to it exists during the
//! launch.

use crate::backend::sim::{SimSlice, SimSliceMut};
use crate::dtype::{Dtype, Element};
use crate::lang::shared::{DynamicSharedArray, SharedArray};

/// Something four elements can be read from: a kernel's slice parameter or a 1-D shared
/// array.
pub trait VectorSource<T> {
    #[doc(hidden)]
    fn read4(&self, vector: usize) -> [T; 4];
}

/// Something four elements can be written to: a kernel's `&mut` slice parameter or a 1-D
/// shared array.
pub trait VectorTarget<T> {
    #[doc(hidden)]
    fn write4(&self, vector: usize, values: [T; 4]);
}

/// Reads and writes of four elements through an array's checked `get` and `set`: a load
/// reports its first element out of range, a store its last (checked first, so nothing
/// is written when the vector overruns), as the GPU's checks do.
macro_rules! vector_access {
    ([$($decl:tt)*] $ty:ty, $read:ident, $write:ident) => {
        impl<$($decl)*> VectorSource<T> for $ty {
            fn read4(&self, vector: usize) -> [T; 4] {
                let base = vector.saturating_mul(4);
                std::array::from_fn(|k| self.$read(base.saturating_add(k)))
            }
        }
        impl<$($decl)*> VectorTarget<T> for $ty {
            fn write4(&self, vector: usize, values: [T; 4]) {
                let base = vector.saturating_mul(4);
                let _ = self.$read(base.saturating_add(3));
                for (k, v) in values.into_iter().enumerate() {
                    self.$write(base + k, v);
                }
            }
        }
    };
}

impl<T: Dtype> VectorSource<T> for SimSlice<'_, T> {
    fn read4(&self, vector: usize) -> [T; 4] {
        let base = vector.saturating_mul(4);
        std::array::from_fn(|k| self.get(base.saturating_add(k)))
    }
}

vector_access!(['a, T: Dtype] SimSliceMut<'a, T>, get, set);
vector_access!([T: Element, const N: usize] SharedArray<T, N>, get, set);
vector_access!([T: Element] DynamicSharedArray<T>, get, set);

/// `[a[4 * vector], a[4 * vector + 1], a[4 * vector + 2], a[4 * vector + 3]]`, as one load.
pub fn load4<T: Dtype, S: VectorSource<T>>(a: S, vector: usize) -> [T; 4] {
    a.read4(vector)
}

/// Write `x, y, z, w` to `a[4 * vector..4 * vector + 4]`, as one store.
pub fn store4<T: Dtype, S: VectorTarget<T>>(a: S, vector: usize, x: T, y: T, z: T, w: T) {
    a.write4(vector, [x, y, z, w]);
}
