//! Where the simulated thread stands: the position the simulator sets around each
//! thread's run, which the kernel language's geometry functions (`lang/geometry.rs`) read.

use std::cell::Cell;

use crate::launch::dims::Dim3;

/// Where the simulated thread stands; set by the simulator around each thread's run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ThreadPosition {
    pub thread_idx: Dim3,
    pub block_idx: Dim3,
    pub block_dim: Dim3,
    pub grid_dim: Dim3,
}

thread_local! {
    static POSITION: Cell<Option<ThreadPosition>> = const { Cell::new(None) };
}

pub(crate) fn set_position(p: Option<ThreadPosition>) {
    POSITION.with(|c| c.set(p));
}

/// The position [`set_position`] set last, if any.
pub(crate) fn current_position() -> Option<ThreadPosition> {
    POSITION.with(|c| c.get())
}

/// The position of the running simulated thread; panics outside one.
pub(crate) fn position() -> ThreadPosition {
    POSITION.with(|c| c.get()).expect(
        "thread geometry (grid_1d(), thread_idx(), ...) can only be read inside a #[gpu_kernel] \
         running on a device",
    )
}
