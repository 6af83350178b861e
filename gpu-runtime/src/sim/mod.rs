//! The CPU simulator: runs a kernel's Rust body once for every thread of the grid.
//!
//! The attribute keeps each kernel's body as Rust, with its slice parameters replaced by
//! [`SimSlice`] and [`SimSliceMut`], which check every index. The simulator sets the
//! thread's position (what `grid_1d()`, `thread_idx()`, ... read), runs the body, and
//! turns a failure into a [`GpuError`]: an index out of bounds names the kernel, the
//! parameter, the index and the length; any other panic in the body (an overflow, a
//! division by zero) names the thread and block. Threads run one after another, blocks
//! in order, so a kernel whose threads do not communicate gives the GPU's results.

mod slice;

use std::panic::{catch_unwind, AssertUnwindSafe};

pub use slice::{SimSlice, SimSliceMut};

use crate::error::{GpuError, Result};
use crate::geometry::{set_position, Dim3, ThreadPosition};
use crate::kernel::KernelDef;
use crate::launch_config::{DeviceLimits, LaunchConfig};

/// Why a simulated thread stopped early; carried by an unwind that skips the panic hook.
#[derive(Debug)]
pub(crate) enum SimFault {
    OutOfBounds {
        kernel: &'static str,
        param: &'static str,
        index: usize,
        len: usize,
    },
}

/// The block size of a `forall` launch on the simulator.
const SIM_FORALL_BLOCK: u32 = 256;

/// Run `thread` once per thread of `cfg`'s grid.
pub(crate) fn run(
    def: &'static KernelDef,
    cfg: &LaunchConfig<'_>,
    thread: &mut dyn FnMut(),
) -> Result<()> {
    let limits = DeviceLimits::simulator();
    let Some(valid) = cfg.validate(
        def.name,
        &limits,
        limits.max_threads_per_block,
        SIM_FORALL_BLOCK,
    )?
    else {
        return Ok(());
    };
    let (grid, block) = (valid.grid, valid.block);
    let mut current = ThreadPosition {
        thread_idx: Dim3::new(0, 0, 0),
        block_idx: Dim3::new(0, 0, 0),
        block_dim: block,
        grid_dim: grid,
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        for bz in 0..grid.z {
            for by in 0..grid.y {
                for bx in 0..grid.x {
                    current.block_idx = Dim3::new(bx, by, bz);
                    for tz in 0..block.z {
                        for ty in 0..block.y {
                            for tx in 0..block.x {
                                current.thread_idx = Dim3::new(tx, ty, tz);
                                set_position(Some(current));
                                thread();
                            }
                        }
                    }
                }
            }
        }
    }));
    set_position(None);
    outcome.map_err(|payload| {
        if let Some(fault) = payload.downcast_ref::<SimFault>() {
            return match *fault {
                SimFault::OutOfBounds {
                    kernel,
                    param,
                    index,
                    len,
                } => GpuError::OutOfBounds {
                    kernel,
                    param,
                    index,
                    len,
                },
            };
        }
        let message = payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic with no message".to_owned());
        GpuError::SimulatorPanic {
            kernel: def.name,
            thread: current.thread_idx.tuple(),
            block: current.block_idx.tuple(),
            message,
        }
    })
}
