//! Launch configurations and their validation.
//!
//! A configuration is built from whatever the caller has at hand (`u32`, `usize`, an
//! unsuffixed literal, a 2- or 3-tuple of those) and checked against the device's limits
//! before the driver sees it, so a mistake comes back as [`GpuError::InvalidLaunch`]
//! naming the kernel and the limit, never as an opaque driver code.

use crate::error::{GpuError, Result};
use crate::host::stream::Stream;
use crate::launch::dims::{DeviceLimits, Dim3, ValidLaunch};

/// One extent of a grid or block, converted without loss; negative values are kept as
/// `None` so validation can name them.
pub trait Extent: Copy {
    /// The value as `u64`, or `None` if it is negative.
    fn to_extent(self) -> Option<u64>;
}

macro_rules! impl_extent {
    (unsigned: $($u:ty),*; signed: $($s:ty),*) => {
        $(impl Extent for $u {
            #[inline]
            fn to_extent(self) -> Option<u64> { Some(self as u64) }
        })*
        $(impl Extent for $s {
            #[inline]
            fn to_extent(self) -> Option<u64> { u64::try_from(self).ok() }
        })*
    };
}

impl_extent!(unsigned: u8, u16, u32, u64, usize; signed: i8, i16, i32, i64, isize);

/// Something that gives the x, y and z extents of a grid or block: an integer (`n`
/// means `(n, 1, 1)`), a 2-tuple or a 3-tuple, or a [`Dim3`].
pub trait IntoExtents {
    /// The three extents, unvalidated: what [`LaunchConfig::new`] keeps for the launch to
    /// check.
    #[doc(hidden)]
    fn into_extents(self) -> Extents;
}

/// Three unvalidated extents (`None` marks a negative one), checked at launch. Opaque:
/// made only from an [`IntoExtents`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extents(pub(crate) [Option<u64>; 3]);

impl Extents {
    /// As a [`Dim3`], if every extent is in `1..=max` of its axis.
    #[inline]
    fn within(self, max: [u32; 3]) -> Option<Dim3> {
        let [Some(x), Some(y), Some(z)] = self.0 else {
            return None;
        };
        // `v - 1 < m` (wrapping) is `1 <= v <= m`, tested for the three at once.
        let inside = |v: u64, m: u32| v.wrapping_sub(1) < u64::from(m);
        (inside(x, max[0]) & inside(y, max[1]) & inside(z, max[2]))
            .then(|| Dim3::new(x as u32, y as u32, z as u32))
    }
}

impl<E: Extent> IntoExtents for E {
    #[inline]
    fn into_extents(self) -> Extents {
        Extents([self.to_extent(), Some(1), Some(1)])
    }
}

impl<A: Extent, B: Extent> IntoExtents for (A, B) {
    #[inline]
    fn into_extents(self) -> Extents {
        Extents([self.0.to_extent(), self.1.to_extent(), Some(1)])
    }
}

impl<A: Extent, B: Extent, C: Extent> IntoExtents for (A, B, C) {
    #[inline]
    fn into_extents(self) -> Extents {
        Extents([self.0.to_extent(), self.1.to_extent(), self.2.to_extent()])
    }
}

impl IntoExtents for Dim3 {
    #[inline]
    fn into_extents(self) -> Extents {
        Extents([
            Some(self.x as u64),
            Some(self.y as u64),
            Some(self.z as u64),
        ])
    }
}

/// How a kernel is launched: grid and block extents, dynamic shared memory, and the stream
/// (the device's default stream when none is given). Built with [`LaunchConfig::new`] or
/// [`LaunchConfig::forall`] and the `on_stream`/`with_shared_mem` methods (or by
/// `launch!`); what it holds is checked at launch, where a value the device cannot take is
/// [`GpuError::InvalidLaunch`].
#[derive(Clone, Copy, Debug)]
pub struct LaunchConfig<'s> {
    /// The grid and block, given or chosen at launch.
    pub(crate) shape: Shape,
    /// Bytes of dynamic shared memory per block (`None` if a negative count was given).
    pub(crate) shared_mem_bytes: Option<u64>,
    /// The stream to launch on; `None` for the device's default stream.
    pub(crate) stream: Option<&'s Stream>,
}

/// How the grid and block of a launch are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// As given: `grid` blocks of `block` threads.
    Explicit {
        /// Blocks in the grid.
        grid: Extents,
        /// Threads in a block.
        block: Extents,
    },
    /// At least this many threads along x (`None` if a negative count was given), in
    /// blocks of the size the runtime picks for the compiled kernel (Numba's `forall`).
    ForAll(Option<u64>),
    /// Blocks of this many threads, as many as the device holds at once for the compiled
    /// kernel (what a cooperative launch may have).
    Cooperative(Extents),
}

impl<'s> LaunchConfig<'s> {
    /// A configuration with `grid` blocks of `block` threads, on the default stream.
    #[inline]
    pub fn new(grid: impl IntoExtents, block: impl IntoExtents) -> LaunchConfig<'static> {
        LaunchConfig {
            shape: Shape::Explicit {
                grid: grid.into_extents(),
                block: block.into_extents(),
            },
            shared_mem_bytes: Some(0),
            stream: None,
        }
    }

    /// A configuration with one thread per element for `n` elements, the block size chosen
    /// per compiled kernel from the occupancy API (never more threads than the compiled
    /// kernel allows); `n = 0` launches nothing. As Numba's `kernel.forall(n)`.
    #[inline]
    pub fn forall(n: impl Extent) -> LaunchConfig<'static> {
        LaunchConfig {
            shape: Shape::ForAll(n.to_extent()),
            shared_mem_bytes: Some(0),
            stream: None,
        }
    }

    /// A configuration with blocks of `block` threads, as many of them as the device holds
    /// resident at once for the compiled kernel, its block size and dynamic shared memory:
    /// the largest grid a cooperative kernel (one that calls `sync_grid()`) may have, which
    /// the kernel module's `max_cooperative_blocks` tells ahead (Numba's
    /// `max_cooperative_grid_blocks`). Any kernel may be launched so (a persistent kernel
    /// whose threads stride over the data); the grid is one-dimensional. On the simulator,
    /// which runs every thread of a cooperative grid at once, the grid is
    /// 4096 threads' worth of blocks (4096 / threads per block).
    #[inline]
    pub fn cooperative(block: impl IntoExtents) -> LaunchConfig<'static> {
        LaunchConfig {
            shape: Shape::Cooperative(block.into_extents()),
            shared_mem_bytes: Some(0),
            stream: None,
        }
    }

    /// The same configuration on `stream`.
    #[inline]
    pub fn on_stream<'t>(self, stream: &'t Stream) -> LaunchConfig<'t> {
        LaunchConfig {
            shape: self.shape,
            shared_mem_bytes: self.shared_mem_bytes,
            stream: Some(stream),
        }
    }

    /// The same configuration with `bytes` of dynamic shared memory per block.
    #[inline]
    pub fn with_shared_mem(mut self, bytes: impl Extent) -> Self {
        self.shared_mem_bytes = bytes.to_extent();
        self
    }

    /// Check against `limits`; returns the grid and block as [`Dim3`], or `None` for a
    /// `forall(0)`, which launches nothing. `auto_block` is the block size a `forall`
    /// uses for this kernel.
    #[inline]
    pub(crate) fn validate(
        &self,
        kernel: &'static str,
        limits: &DeviceLimits,
        max_threads: u32,
        auto_block: u32,
        max_dynamic_shared: u32,
    ) -> Result<Option<ValidLaunch>> {
        // Every launch takes this branch-light test; only one that fails it pays for
        // `explain`, which finds the first violation and says what it is.
        let (grid, block) = match self.shape {
            Shape::Explicit { grid, block } => (grid, block),
            Shape::ForAll(Some(n)) if n > 0 => forall_shape(n, auto_block),
            _ => return self.explain(kernel, limits, max_threads, auto_block, max_dynamic_shared),
        };
        match self.within(grid, block, limits) {
            Some(valid) if valid.fits(max_threads, max_dynamic_shared) => Ok(Some(valid)),
            _ => self.explain(kernel, limits, max_threads, auto_block, max_dynamic_shared),
        }
    }

    /// An explicit grid and block within the device's limits on each axis, with dynamic
    /// shared memory that is not negative; `None` for anything else (a `forall`
    /// included). The kernel's own limits are [`ValidLaunch::fits`]'s.
    #[inline]
    pub(crate) fn explicit_within(&self, limits: &DeviceLimits) -> Option<ValidLaunch> {
        match self.shape {
            Shape::Explicit { grid, block } => self.within(grid, block, limits),
            Shape::ForAll(_) | Shape::Cooperative(_) => None,
        }
    }

    #[inline(always)]
    fn within(&self, grid: Extents, block: Extents, limits: &DeviceLimits) -> Option<ValidLaunch> {
        let shared = self.shared_mem_bytes?;
        Some(ValidLaunch {
            grid: grid.within(limits.max_grid)?,
            block: block.within(limits.max_block)?,
            shared_mem_bytes: u32::try_from(shared).ok()?,
        })
    }

    /// [`LaunchConfig::validate`] one check at a time, for the error that names the first
    /// violation (and for the launches that need no test: `forall(0)` and negatives).
    #[cold]
    #[inline(never)]
    fn explain(
        &self,
        kernel: &'static str,
        limits: &DeviceLimits,
        max_threads: u32,
        auto_block: u32,
        max_dynamic_shared: u32,
    ) -> Result<Option<ValidLaunch>> {
        let fail = |reason: String| GpuError::InvalidLaunch { kernel, reason };
        let (grid, block) = match self.shape {
            Shape::Explicit { grid, block } => (grid, block),
            Shape::ForAll(None) => return Err(fail("forall(n) with a negative n".to_owned())),
            Shape::ForAll(Some(0)) => return Ok(None),
            Shape::ForAll(Some(n)) => forall_shape(n, auto_block),
            // A launch resolves the grid first; a graph's recording (checked again at its
            // launch) validates the block alone.
            Shape::Cooperative(block) => (Extents([Some(1), Some(1), Some(1)]), block),
        };
        let grid = dims("grid", grid, limits.max_grid).map_err(fail)?;
        let block = dims("block", block, limits.max_block).map_err(fail)?;
        if block.volume() > max_threads as u64 {
            return Err(fail(format!(
                "a block of {} threads ({} x {} x {}) exceeds the limit of {} threads per block \
                 for this kernel on {}",
                block.volume(),
                block.x,
                block.y,
                block.z,
                max_threads,
                limits.device_name
            )));
        }
        let shared_mem_bytes = match self.shared_mem_bytes {
            None => {
                return Err(fail(
                    "the dynamic shared memory size is negative".to_owned(),
                ))
            }
            Some(b) if b > max_dynamic_shared as u64 => {
                return Err(fail(format!(
                    "{b} bytes of dynamic shared memory exceed the {max_dynamic_shared} bytes per \
                     block this kernel can have on {}",
                    limits.device_name
                )))
            }
            Some(b) => b as u32,
        };
        Ok(Some(ValidLaunch {
            grid,
            block,
            shared_mem_bytes,
        }))
    }
}

/// A `cooperative(block)` configuration made explicit; any other as it is.
impl LaunchConfig<'_> {
    /// The grid's x extent of an explicit configuration (0 for any other, or a negative
    /// one).
    pub(crate) fn grid_x(&self) -> u64 {
        match self.shape {
            Shape::Explicit { grid, .. } => grid.0[0].unwrap_or(0),
            _ => 0,
        }
    }

    /// The grid of a `cooperative(block)` configuration, from `resident(threads,
    /// dynamic_shared)`, the blocks of that size the device holds at once for the kernel; a
    /// block or shared size that is not valid for it (below `max_threads` and
    /// `max_dynamic_shared`, within the device's axes) keeps a grid of 1, for
    /// [`LaunchConfig::validate`] to explain. Not one block resident is
    /// [`GpuError::InvalidLaunch`].
    pub(crate) fn resolve_cooperative(
        self,
        kernel: &'static str,
        limits: &DeviceLimits,
        max_threads: u32,
        max_dynamic_shared: u32,
        resident: impl FnOnce(u32, u32) -> Result<u64>,
    ) -> Result<Self> {
        let Shape::Cooperative(block) = self.shape else {
            return Ok(self);
        };
        let explicit = |grid: u64| Self {
            shape: Shape::Explicit {
                grid: Extents([Some(grid), Some(1), Some(1)]),
                block,
            },
            ..self
        };
        let Some(valid) = self.within(Extents([Some(1), Some(1), Some(1)]), block, limits) else {
            return Ok(explicit(1));
        };
        if !valid.fits(max_threads, max_dynamic_shared) {
            return Ok(explicit(1));
        }
        let threads = valid.block.volume() as u32;
        match resident(threads, valid.shared_mem_bytes)? {
            0 => Err(GpuError::InvalidLaunch {
                kernel,
                reason: format!(
                    "not one block of {threads} threads with {} bytes of dynamic shared memory \
                     can be resident on {} (the kernel's registers or shared memory take too \
                     much); use smaller blocks",
                    valid.shared_mem_bytes, limits.device_name
                ),
            }),
            n => Ok(explicit(n.min(u64::from(limits.max_grid[0])))),
        }
    }
}

/// The grid and block of `forall(n)` in blocks of `block` threads.
#[inline]
fn forall_shape(n: u64, block: u32) -> (Extents, Extents) {
    let block = u64::from(block);
    (
        Extents([Some(n.div_ceil(block)), Some(1), Some(1)]),
        Extents([Some(block), Some(1), Some(1)]),
    )
}

fn dims(what: &str, e: Extents, max: [u32; 3]) -> std::result::Result<Dim3, String> {
    let mut out = [0u32; 3];
    for (axis, ((value, limit), slot)) in e.0.iter().zip(max).zip(&mut out).enumerate() {
        let name = ["x", "y", "z"][axis];
        match value {
            None => return Err(format!("{what}.{name} is negative")),
            Some(0) => {
                return Err(format!(
                    "{what}.{name} is 0; every extent must be at least 1"
                ))
            }
            Some(v) if *v > limit as u64 => {
                return Err(format!(
                    "{what}.{name} = {v} exceeds the device limit of {limit}"
                ))
            }
            Some(v) => *slot = *v as u32,
        }
    }
    Ok(Dim3::new(out[0], out[1], out[2]))
}
